package placement

// layered is a map that a Sim and its clones share without copying it. A
// clone freezes what the map holds; from then on each side writes into a
// map of its own and reads through to the frozen ones. A rollout clones
// its simulation for every node a budget blocks (RoomIn's trial drain and
// smallestChange's replays), and copying every pod it had moved so far,
// each time, was a quarter of plan --all's time on a full fleet.
//
// Frozen maps are merged as they pile up, so that a read looks in a few:
// the newest is merged into the one below it while it holds at least half
// as much (as a log-structured merge tree does), which keeps the levels
// logarithmic in what the map holds. A frozen map is never written again;
// merging makes a new one.
type layered[K comparable, V any] struct {
	own    map[K]V
	frozen []map[K]V // newest first
}

func (l *layered[K, V]) get(k K) (V, bool) {
	if v, ok := l.own[k]; ok {
		return v, true
	}
	for _, m := range l.frozen {
		if v, ok := m[k]; ok {
			return v, true
		}
	}
	var zero V
	return zero, false
}

// at is k's value, the zero value when l has none.
func (l *layered[K, V]) at(k K) V {
	v, _ := l.get(k)
	return v
}

func (l *layered[K, V]) set(k K, v V) {
	if l.own == nil {
		l.own = map[K]V{}
	}
	l.own[k] = v
}

// clone freezes what l holds and returns a map that shares it.
func (l *layered[K, V]) clone() layered[K, V] { return l.cloneKeeping(nil) }

// cloneKeeping is clone, leaving out of the levels it merges the entries
// keep refuses (nil keeps all): those neither side will read again.
func (l *layered[K, V]) cloneKeeping(keep func(V) bool) layered[K, V] {
	if len(l.own) > 0 {
		l.frozen = freeze(l.own, l.frozen, keep)
		l.own = nil
	}
	return layered[K, V]{frozen: l.frozen}
}

// freeze puts m on top of levels in a new slice (levels may be shared),
// merging levels from the top while the upper holds at least half the
// lower's entries.
func freeze[K comparable, V any](m map[K]V, levels []map[K]V, keep func(V) bool) []map[K]V {
	for len(levels) > 0 && 2*len(m) >= len(levels[0]) {
		merged := make(map[K]V, len(m)+len(levels[0]))
		for _, level := range []map[K]V{levels[0], m} { // the newer level wins
			for k, v := range level {
				if keep == nil || keep(v) {
					merged[k] = v
				} else {
					delete(merged, k)
				}
			}
		}
		m, levels = merged, levels[1:]
	}
	return append([]map[K]V{m}, levels...)
}

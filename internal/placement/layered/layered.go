// Package layered is a map that a simulation (internal/placement) and its
// clones share without copying it. A clone freezes what the map holds;
// from then on each side writes into a map of its own and reads through
// to the frozen ones. A rollout clones its simulation for every node a
// budget blocks (RoomIn's trial drain and smallestChange's replays), and
// copying every pod it had moved so far, each time, was a quarter of plan
// --all's time on a full fleet.
//
// Frozen maps are merged as they pile up, so that a read looks in a few:
// the newest is merged into the one below it while it holds at least half
// as much (as a log-structured merge tree does), which keeps the levels
// logarithmic in what the map holds. A frozen map is never written again;
// merging makes a new one.
package layered

import "iter"

// Map is a layered map; its zero value is empty.
type Map[K comparable, V any] struct {
	own    map[K]V
	frozen []map[K]V // newest first
}

// Get is k's value, and whether l has one.
func (l *Map[K, V]) Get(k K) (V, bool) {
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

// At is k's value, the zero value when l has none.
func (l *Map[K, V]) At(k K) V {
	v, _ := l.Get(k)
	return v
}

// Set gives k the value v.
func (l *Map[K, V]) Set(k K, v V) {
	if l.own == nil {
		l.own = map[K]V{}
	}
	l.own[k] = v
}

// Clone freezes what l holds and returns a map that shares it.
func (l *Map[K, V]) Clone() Map[K, V] { return l.CloneKeeping(nil) }

// CloneKeeping is Clone, leaving out of the levels it merges the entries
// keep refuses (nil keeps all): those neither side will read again.
func (l *Map[K, V]) CloneKeeping(keep func(V) bool) Map[K, V] {
	if len(l.own) > 0 {
		l.frozen = freeze(l.own, l.frozen, keep)
		l.own = nil
	}
	return Map[K, V]{frozen: l.frozen}
}

// Own is k's value when this side wrote it since its last clone; a value
// read from a frozen level is shared, and is copied before it changes.
func (l *Map[K, V]) Own(k K) (V, bool) {
	v, ok := l.own[k]
	return v, ok
}

// OwnLen is how many keys this side wrote since its last clone.
func (l *Map[K, V]) OwnLen() int { return len(l.own) }

// KeepOwn drops, of what this side wrote since its last clone, the
// entries keep refuses: those no one will read again.
func (l *Map[K, V]) KeepOwn(keep func(V) bool) {
	out := make(map[K]V, len(l.own))
	for k, v := range l.own {
		if keep(v) {
			out[k] = v
		}
	}
	l.own = out
}

// Keys yields every key set at any level, one overwritten since perhaps
// more than once.
func (l *Map[K, V]) Keys() iter.Seq[K] {
	return func(yield func(K) bool) {
		for _, level := range append([]map[K]V{l.own}, l.frozen...) {
			for k := range level {
				if !yield(k) {
					return
				}
			}
		}
	}
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

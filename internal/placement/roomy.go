package placement

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/gpures"
	"github.com/drvcheck/drvcheck/internal/placement/nodeset"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// A search for a replacement's node walks the nodes its constraints admit
// until one has room. On a full fleet none has, and every search walked
// thousands of nodes to learn it, in every drain and every replay of one.
// Yet a simulation moves few pods: a node that had no room for a kind of
// pod as the model was read still has none, unless a pod left it. So the
// model lists once, per placement and kind of request, the nodes that had
// room, and a search walks those and the nodes a pod has left since, in
// the same order a walk of every node would take.

// fitKey is a placement and what a pod asks of a node: a pod slot, and up
// to two GPU requests (a pod asking for more kinds is searched the long
// way).
type fitKey struct {
	pl    *sched.Placement
	holds bool
	n     int
	req   [2]gpures.Request
}

// roomy is the positions, in the placement's eligible nodes by name, of the
// nodes that had room for one more such pod in the model as read; and for
// every position, the node's number in the model's order and why it had
// no room then ("" when it had), for wording a failed search (whyNot)
// without testing the nodes no pod has moved on or off.
type roomy struct {
	at       []int
	set      nodeset.Set // at, by the model's order
	eligible nodeset.Set // every position, by the model's order
	order    []int32
	why      []uint8 // an index in reasons; 0 when it had room
	// byWhy is, per reason (why-1), its nodes by the model's order;
	// untold the nodes without room whose reason is past the index.
	byWhy  []nodeset.Set
	untold nodeset.Set
	// seen is why, for every position, as a Sim last worded it, and the
	// node's stamp then (unfit).
	seen []seenWhy
}

type seenWhy struct {
	stamp uint64
	why   uint8
}

// reasons are the words of why, shared: a fit fails for few reasons ("Too
// many pods", "Insufficient nvidia.com/gpu"), and a byte per node and
// request is all the index keeps.
type reasons struct{ words []string }

func (rs *reasons) index(why string) uint8 {
	if why == "" {
		return 0
	}
	if i := slices.Index(rs.words, why); i >= 0 {
		return uint8(i + 1)
	}
	if len(rs.words) == 255 {
		return 0 // never reached (one reason per GPU resource); then the node is tested
	}
	rs.words = append(rs.words, why)
	return uint8(len(rs.words))
}

// word is the reason at index i (0: none).
func (rs *reasons) word(i uint8) string {
	if i == 0 {
		return ""
	}
	return rs.words[i-1]
}

// fitKeyOf is p's key; false when p asks for too many kinds of GPU.
func fitKeyOf(pl *sched.Placement, p *drain.Pod) (fitKey, bool) {
	g := groupOf(p)
	k := fitKey{pl: pl, holds: g.holds, n: len(g.gpu)}
	if k.n > len(k.req) {
		return k, false
	}
	copy(k.req[:], g.gpu)
	return k, true
}

// roomFor is the nodes among nodes (pl's eligible ones) with room for p as
// the model was read; nil until the model is whole (while the files' pods
// are placed, every node changes) or for a pod fitKeyOf cannot key.
func (m *Model) roomFor(pl *sched.Placement, p *drain.Pod, nodes []*corev1.Node) *roomy {
	if !m.whole {
		return nil
	}
	k, ok := fitKeyOf(pl, p)
	if !ok {
		return nil
	}
	if r, ok := m.roomy[k]; ok {
		return r
	}
	base := &Sim{m: m} // the model as read: nothing moved
	r := &roomy{order: m.globalOf(pl, nodes), why: make([]uint8, len(nodes))}
	for i, n := range nodes {
		r.eligible.Add(int(r.order[i]))
		fits, why := base.fits(p, n, r.order[i], nil)
		if fits {
			r.at = append(r.at, i)
			r.set.Add(int(r.order[i]))
		}
		r.why[i] = m.reasons.index(why)
		switch k := int(r.why[i]); {
		case k > 0:
			for len(r.byWhy) < k {
				r.byWhy = append(r.byWhy, nil)
			}
			r.byWhy[k-1].Add(int(r.order[i]))
		case !fits:
			r.untold.Add(int(r.order[i]))
		}
	}
	if m.roomy == nil {
		m.roomy = map[fitKey]*roomy{}
	}
	m.roomy[k] = r
	return r
}

// walk calls try with the positions in nodes a search for p from start
// must test, in order, until try says so: with the index, the candidates;
// without it (while the files' pods are placed, when nothing leaves a
// node, or for a pod asking too many kinds of GPU), every node but those
// found full.
func (s *Sim) walk(p *drain.Pod, pl *sched.Placement, nodes []*corev1.Node, start int, tolerates bool, self *corev1.Node, try func(int) bool) {
	if len(nodes) == 0 {
		return // e.g. a pod that ran on a node cordoned in the files, the only one it may use
	}
	filled := s.filledFor(p)
	if r := s.m.roomFor(pl, p, nodes); r != nil {
		s.candidates(r, start, tolerates, self, filled, try)
		return
	}
	global := s.m.globalOf(pl, nodes)
	for i := range nodes {
		pos := (start + i) % len(nodes)
		if (nodes[pos] == self || !filled.Has(int(global[pos]))) && try(pos) {
			return
		}
	}
}

// candidates calls try with the positions in nodes a search from start
// must test, in the order of a walk from start that wraps around: the
// nodes that had room, but for those found full since (a full one is
// skipped only while no pod has left it), and those the simulation freed
// room on; for a pod that does not tolerate a cordon, none cordoned, which
// try would refuse. It stops when try says so. They are one set, walked
// once: walking the nodes that had room one by one met every node a
// rollout had cordoned (a quarter of the fleet) in every search, and
// plan --all grew with the square of the fleet. The set is made a word
// (64 nodes) at a time as the walk reaches it: most searches stop at
// their first candidate, and making the whole set for each grew with the
// fleet too (on gitops, 822,000 searches at 15,000 nodes).
func (s *Sim) candidates(r *roomy, start int, tolerates bool, self *corev1.Node, filled nodeset.Set, try func(int) bool) {
	var cordons nodeset.Set
	if !tolerates {
		cordons = s.cordonSet
	}
	// Only the placement's nodes: a member it lacks would cost a vain
	// bisection in every search.
	selfAt := -1
	if self != nil { // the node a dry run's pod leaves has its room too
		selfAt = s.m.order[self.Name]
	}
	word := func(w int) uint64 {
		room := r.set.Word(w)
		x := (s.freed.Word(w)&^room | room&^filled.Word(w)) & r.eligible.Word(w) &^ cordons.Word(w)
		if selfAt >= 0 && selfAt/64 == w {
			x |= 1 << (selfAt % 64)
		}
		return x
	}
	// A candidate had room as read, or was freed since, or is self.
	words := max(len(r.eligible), selfAt/64+1)
	next := func(w int) int {
		n := min(r.set.NextWord(w, words), s.freed.NextWord(w, words))
		if self := selfAt / 64; selfAt >= 0 && self >= w && self < n {
			return self
		}
		return n
	}
	more := nodeset.Lazy(words, word, next, int(r.order[start]), r.order)
	for pos, ok := more.Next(); ok; pos, ok = more.Next() {
		if try(pos) {
			return
		}
	}
}

// globalOf numbers nodes (pl's eligible nodes by name) in the model's
// order; made once per placement.
func (m *Model) globalOf(pl *sched.Placement, nodes []*corev1.Node) []int32 {
	if g, ok := m.global[pl]; ok {
		return g
	}
	g := make([]int32, len(nodes))
	for i, n := range nodes {
		g[i] = int32(m.order[n.Name])
	}
	if m.global == nil {
		m.global = map[*sched.Placement][]int32{}
	}
	m.global[pl] = g
	return g
}

// number is the number of node, one of the model's nodes, in its order.
func (m *Model) number(node string) int32 { return int32(m.order[node]) }

// nodeOrder numbers the model's nodes by name, the order every eligible
// list keeps.
func nodeOrder(nodes []*corev1.Node) map[string]int {
	names := make([]string, 0, len(nodes))
	for _, n := range nodes {
		names = append(names, n.Name)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	out := make(map[string]int, len(names))
	for i, name := range names {
		out[name] = i
	}
	return out
}

// noteUse keeps s.freed and s.changed exact for node after a move on it.
func (s *Sim) noteUse(node string) {
	i, ok := s.m.order[node]
	if !ok {
		return
	}
	d := s.usedDelta.pods.At(int32(i))
	freed, changed := d < 0, d != 0
	for res := range int32(len(s.m.resIDs)) {
		d := s.usedDelta.gpus.At(useKey{int32(i), res})
		freed, changed = freed || d < 0, changed || d != 0
	}
	s.freed.Put(i, freed)
	s.changed.Put(i, changed)
	s.m.stamps++
	s.stamp.Set(i, s.m.stamps)
}

// A node that had room in the model as read fills as replacements land
// on it, and the searches after would test it again and again. So a Sim
// remembers, per kind of request, the nodes found without room for it,
// until a pod leaves them.

// requestKey is what a pod asks of a node, whatever its placement.
func requestKey(p *drain.Pod) (fitKey, bool) { return fitKeyOf(nil, p) }

// filledFor is the nodes found full for p's request; nil when p cannot
// be keyed.
func (s *Sim) filledFor(p *drain.Pod) nodeset.Set {
	k, ok := requestKey(p)
	if !ok {
		return nil
	}
	return s.filled[k]
}

// noteFull remembers that node (by name) has no room for p's request.
func (s *Sim) noteFull(p *drain.Pod, node string) {
	k, ok := requestKey(p)
	i, known := s.m.order[node]
	if !ok || !known || !remembers {
		return
	}
	if s.filled == nil {
		s.filled = map[fitKey]nodeset.Set{}
	}
	f := s.filled[k]
	f.Add(i)
	s.filled[k] = f
}

// unfill forgets every fullness of node: a pod left it.
func (s *Sim) unfill(node string) {
	if i, ok := s.m.order[node]; ok {
		for _, f := range s.filled {
			f.Remove(i)
		}
	}
}

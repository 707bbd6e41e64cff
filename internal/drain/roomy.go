package drain

import (
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/sched"
)

// A search for a replacement's node walks the nodes its constraints admit
// until one has room. On a full fleet none has, and every search walked
// thousands of nodes to learn it, in every drain and every replay of one.
// Yet a simulation moves few pods: a node that had no room for a kind of
// pod as the model was read still has none, unless a pod left it. So the
// model lists once, per placement and kind of request, the nodes that had
// room, and a search walks those and the nodes the simulation changed,
// in the same order a walk of every node would take.

// fitKey is a placement and what a pod asks of a node: a pod slot, and up
// to two GPU requests (a pod asking for more kinds is searched the long
// way).
type fitKey struct {
	pl    *sched.Placement
	holds bool
	n     int
	req   [2]request
}

// roomy is the positions, in the placement's eligible nodes by name, of the
// nodes that had room for one more such pod in the model as read.
type roomy struct{ at []int }

// fitKeyOf is p's key; false when p asks for too many kinds of GPU.
func fitKeyOf(pl *sched.Placement, p *Pod) (fitKey, bool) {
	k := fitKey{pl: pl, holds: p.holds, n: len(p.gpu)}
	if k.n > len(k.req) {
		return k, false
	}
	copy(k.req[:], p.gpu)
	return k, true
}

// roomFor is the nodes among nodes (pl's eligible ones) with room for p as
// the model was read; nil until the model is whole (while the files' pods
// are placed, every node changes) or for a pod fitKeyOf cannot key.
func (m *Model) roomFor(pl *sched.Placement, p *Pod, nodes []*corev1.Node) *roomy {
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
	r := &roomy{}
	for i, n := range nodes {
		if fits, _ := base.fits(p, n, nil); fits {
			r.at = append(r.at, i)
		}
	}
	if m.roomy == nil {
		m.roomy = map[fitKey]*roomy{}
	}
	m.roomy[k] = r
	return r
}

// candidates calls try with the positions in nodes a search from start
// must test, in the order of a walk from start that wraps around: the
// nodes that had room, and those the simulation freed room on. It stops
// when try says so.
func (s *Sim) candidates(r *roomy, nodes []*corev1.Node, start int, self *corev1.Node, try func(int) bool) {
	n := len(nodes)
	dist := func(pos int) int { return (pos - start + n) % n }
	freed := s.freedIn(nodes)
	if self != nil { // the node a dry run's pod leaves has its room too
		freed = appendPos(freed, nodes, self.Name)
	}
	sort.Slice(freed, func(i, j int) bool { return dist(freed[i]) < dist(freed[j]) })
	first := sort.SearchInts(r.at, start)
	for i, j := 0, 0; i < len(r.at) || j < len(freed); {
		var pos int
		if i < len(r.at) {
			pos = r.at[(first+i)%len(r.at)]
		}
		if j < len(freed) && (i == len(r.at) || dist(freed[j]) < dist(pos)) {
			pos = freed[j]
			j++
		} else {
			i++
		}
		if try(pos) {
			return
		}
	}
}

// freedIn is the positions in nodes (by name) of the nodes a pod left in
// this simulation: only there can room have grown.
func (s *Sim) freedIn(nodes []*corev1.Node) []int {
	var out []int
	for name, d := range s.usedDelta.pods {
		if d < 0 {
			out = appendPos(out, nodes, name)
		}
	}
	for k, d := range s.usedDelta.gpus {
		if d < 0 {
			out = appendPos(out, nodes, k.node)
		}
	}
	return out
}

func appendPos(out []int, nodes []*corev1.Node, name string) []int {
	i := sort.Search(len(nodes), func(i int) bool { return nodes[i].Name >= name })
	if i < len(nodes) && nodes[i].Name == name {
		return append(out, i)
	}
	return out
}

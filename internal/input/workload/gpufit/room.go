package gpufit

import (
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// Room is a gang that fits the fleet, kept so that a rollout can ask
// again with the nodes of one of its windows out (plan --all): the
// window table of the input document assumes the roomiest nodes out,
// a simulated rollout knows which.
type Room struct {
	Object object.Ref
	Must   int    // its pods that must run at once
	Why    string // why its kind is a gang (gangKinds)

	j     *Judge
	p     *sched.Placement // the first member's: the classes at indexes
	wants []gangPod
	free  []slot
	at    slotIndex
	memo  map[string]int // placed, by the slots' counts taken out
}

// slotIndex says which slot of a gang's holds a node: by class and offer
// for the nodes counted together, by name for those with a slot each.
type slotIndex struct {
	byGroup map[groupKey]int
	byNode  map[string]int
}

type groupKey struct {
	class *sched.Class
	offer string
}

// String names the gang's object, as findings do.
func (r *Room) String() string { return r.Object.String() }

// MustRun is how many of its pods must run at once.
func (r *Room) MustRun() int { return r.Must }

// Reason says why its kind is a gang.
func (r *Room) Reason() string { return r.Why }

// Rooms are the gangs judged so far that fit the fleet, in the order
// judged.
func (j *Judge) Rooms() []*Room { return j.rooms }

// Placed says how many of the pods that must run at once fit with the
// nodes named out (cordoned by a rollout), the others as read, and which
// of the nodes out the gang admits: one it does not admit changes
// nothing.
func (r *Room) Placed(out []string) (placed int, admitted []string) {
	taken := map[int]int{}
	for _, name := range out {
		if i, ok := r.slotOf(name); ok {
			taken[i]++
			admitted = append(admitted, name)
		}
	}
	if len(taken) == 0 {
		return r.Must, nil
	}
	key := takenKey(taken)
	if placed, ok := r.memo[key]; ok {
		return placed, admitted
	}
	free := slices.Clone(r.free)
	for i, k := range taken {
		free[i].count -= min(k, free[i].count)
	}
	placed = pack(free, r.wants, 0)
	if r.memo == nil {
		r.memo = map[string]int{}
	}
	r.memo[key] = placed
	return placed, admitted
}

// slotOf is the slot that holds the node named, if the gang admits it.
func (r *Room) slotOf(name string) (int, bool) {
	if i, ok := r.at.byNode[name]; ok {
		return i, true
	}
	n, cl := r.j.classOf(r.p, name)
	if n == nil {
		return 0, false
	}
	i, ok := r.at.byGroup[groupKey{cl, r.j.offerOf(n).Key()}]
	return i, ok
}

// classOf finds the node named among the classes p admits, with its
// class, indexing p's classes by name once.
func (j *Judge) classOf(p *sched.Placement, name string) (*corev1.Node, *sched.Class) {
	idx, ok := j.byName[p]
	if !ok {
		idx = map[string]classed{}
		for _, v := range p.Classes {
			if !v.Admits() {
				continue
			}
			for _, n := range v.Class.Nodes {
				idx[n.Name] = classed{n, v.Class}
			}
		}
		if j.byName == nil {
			j.byName = map[*sched.Placement]map[string]classed{}
		}
		j.byName[p] = idx
	}
	c := idx[name]
	return c.node, c.class
}

// classed is a node with its class in one placement.
type classed struct {
	node  *corev1.Node
	class *sched.Class
}

// takenKey writes the counts taken out of each slot, in slot order.
func takenKey(taken map[int]int) string {
	keys := make([]int, 0, len(taken))
	for i := range taken {
		keys = append(keys, i)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, i := range keys {
		b.WriteString(strconv.Itoa(i) + ":" + strconv.Itoa(taken[i]) + ",")
	}
	return b.String()
}

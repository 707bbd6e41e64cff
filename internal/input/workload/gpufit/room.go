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
// again with the nodes of one of its rounds out (plan --all): the
// document's rollout assumes each scope's roomiest nodes out, a simulated
// rollout knows which.
type Room struct {
	Object object.Ref
	Must   int    // its pods that must run at once
	Why    string // why its kind is a gang (gangKinds)

	j     *Judge
	p     *sched.Placement // the first member's: the classes at indexes
	wants []gangPod
	// free are the admitted nodes by the room free on them: a cluster's
	// nodes, each a slot of its own (pods are bound to it), mostly share
	// a few rooms, and a round packs those few.
	free []slot
	at   slotIndex      // the slot of each node, before grouping
	room []int          // the entry of free that holds each slot
	memo map[string]int // placed, by the counts taken out of free
	// worstOut and worstPlaced are the document's rollout: how many fit
	// with the window's roomiest nodes out (0, 0 without a window).
	worstOut, worstPlaced int
}

// newRoom keeps a gang that fits, its slots grouped by free room.
func newRoom(j *Judge, ms []member, must int, wants []gangPod, slots []slot, at slotIndex) *Room {
	r := &Room{Object: ms[0].w.Ref, Must: must, Why: gangKinds[gangKey(ms[0].w)], j: j, p: ms[0].p, wants: wants, at: at}
	index := map[string]int{}
	for _, s := range slots {
		k := roomKey(s.free, s.refuses)
		i, ok := index[k]
		if !ok {
			i = len(r.free)
			index[k] = i
			r.free = append(r.free, slot{free: s.free, refuses: s.refuses})
		}
		r.free[i].count += s.count
		r.room = append(r.room, i)
	}
	return r
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

// maxRoomWork bounds the packing of every gang at every round of one
// run, in pods placed times distinct rooms walked: a fleet of thousands
// of distinct rooms (a repository can write them) and a rollout of
// thousands of rounds would otherwise take hours. Past it, Placed says
// it cannot judge.
const maxRoomWork = 50_000_000

// Placed says how many of the pods that must run at once fit with the
// nodes named out (cordoned by a rollout), the others as read, and which
// of the nodes out the gang admits: one it does not admit changes
// nothing. ok is false once the run's packing is over maxRoomWork.
func (r *Room) Placed(out []string) (placed int, admitted []string, ok bool) {
	taken := map[int]int{}
	for _, name := range out {
		if i, ok := r.slotOf(name); ok {
			taken[r.room[i]]++
			admitted = append(admitted, name)
		}
	}
	if len(taken) == 0 {
		return r.Must, nil, true
	}
	// With the window's roomiest nodes out all fit: so do they with no
	// more of them out, as DRV029 judges it.
	if len(admitted) <= r.worstOut && r.worstPlaced >= r.Must {
		return r.Must, admitted, true
	}
	key := takenKey(taken)
	if placed, ok := r.memo[key]; ok {
		return placed, admitted, true
	}
	r.j.roomWork += len(r.wants) * len(r.free)
	if r.j.roomWork > maxRoomWork {
		return 0, admitted, false
	}
	free := slices.Clone(r.free)
	for i, k := range taken {
		free[i].count -= min(k, free[i].count)
	}
	placed = pack(free, r.wants)
	if r.memo == nil {
		r.memo = map[string]int{}
	}
	r.memo[key] = placed
	return placed, admitted, true
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

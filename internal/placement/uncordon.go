package placement

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// Uncordon makes node schedulable again and lets Pending replacements land.
//
// The waiting pods are taken in the order they wait, as the scheduler's
// queue would, and decided per search key: a key whose search failed
// since room was last freed for it fits on no node but, now, perhaps on
// node (onlyHere), so its pods test node alone; once one of a key's pods
// finds no node, the key's later pods find none either, as landing only
// takes room. A list of one kind of request whose every key failed under
// the counts as they are (queue.at) is offered node only when node has
// room for the kind, and waits on once a pod finds node full: the others
// ask the same of it. A pod with topology spread constraints is searched
// every time: its key leaves them out, and its failure may end when
// another pod lands. Then the room node has left counts as freed
// (freedOn), and the keys that failed meanwhile are remembered under the
// new counts.
func (s *Sim) Uncordon(node string) []drain.Eviction {
	if i, ok := s.m.order[node]; ok {
		s.cordonSet.Remove(i)
	} else {
		delete(s.cordoned, node)
	}
	s.room.cordons++ // a reason worded counts node unschedulable no more
	u := &uncordoning{s: s, node: node, n: s.m.Node(node), decided: map[int32]waitState{}, onlyHere: map[int32]bool{}}
	u.settle(s.waiting.visit(u.pick, u.try))
	return u.landed
}

// settle counts the room the node has left as freed, then keeps what the
// visit found under the new counts: the failures of the keys that found no
// node, and that every key of the lists it picked fails.
func (u *uncordoning) settle(picked []int32) {
	s := u.s
	if u.n != nil { // else a node the model does not hold: no pod may use it
		s.freedOn(u.n)
	}
	for _, id := range u.failed {
		k := s.m.keyList[id]
		if f, ok := s.failures.Get(k); ok {
			s.remember(k, f)
		}
	}
	for _, id := range picked {
		if id > unkeyed {
			s.waiting.failedAt(id, s.failAt(id))
		}
	}
}

// uncordoning is one Uncordon's visit of the waiting pods.
type uncordoning struct {
	s       *Sim
	node    string
	n       *corev1.Node
	decided map[int32]waitState // by search key
	// onlyHere are the lists whose every key fails but perhaps on node.
	onlyHere map[int32]bool
	failed   []int32 // the search keys that found no node
	landed   []drain.Eviction
}

// pick chooses the lists to visit: those of a kind node has room for, when
// every key of the list fails but perhaps on node; else every list.
func (u *uncordoning) pick(id int32, l queue) bool {
	if id <= unkeyed || !u.s.allFail(id, l) {
		return true
	}
	u.onlyHere[id] = u.n != nil && u.s.hasRoomFor(id, u.n)
	return u.onlyHere[id]
}

// try lands p, waiting in list, if it may now: whether it landed, and
// whether the list's later pods are to wait on.
func (u *uncordoning) try(p *drain.Pod, list int32) (landed, stop bool) {
	s := u.s
	if list == spreadList {
		to, _ := s.search(p, false, true) // who stays Pending is not told why
		return u.land(p, to), false
	}
	id, key := s.m.searchKeyOf(s.fleet, p)
	st, seen := u.decided[id]
	if !seen {
		st = searches
		if u.onlyHere[list] {
			st = onlyHere
		} else if _, failed := s.failed(key); failed {
			st = onlyHere
		}
	}
	to, full := "", false
	switch st {
	case stays:
		return false, false
	case onlyHere:
		to, full = s.landOn(p, u.node)
	case searches:
		to, _ = s.search(p, false, true)
	}
	if to == "" && remembers {
		st = stays
		u.failed = append(u.failed, id)
	}
	u.decided[id] = st
	return u.land(p, to), full && u.onlyHere[list]
}

// land moves p to node to, if any.
func (u *uncordoning) land(p *drain.Pod, to string) bool {
	if to == "" {
		return false
	}
	u.s.move(p, to)
	u.s.setHealthy(p, true)
	u.landed = append(u.landed, drain.Eviction{Pod: p, To: to})
	return true
}

// waitState is what an uncordon does with a waiting pod's search key.
type waitState uint8

const (
	searches waitState = iota // a search of every node
	onlyHere                  // the uncordoned node alone
	stays                     // nothing: a pod of the key just found no node
)

// allFail says whether every search key of list id, of one kind of
// request, is known to fail under the counts as they are.
func (s *Sim) allFail(id int32, l queue) bool {
	return remembers && l.at == s.failAt(id)
}

// failAt is the counts as a kind of request sees them now.
func (s *Sim) failAt(fit int32) failAt {
	return failAt{s.room.freed, s.fitFreedFor(fit)}
}

// landOn is search for a pod that fits nowhere but perhaps on node: node
// when p's constraints admit it and it has room, as search would find it,
// cursor and all; else "", and the failure is remembered. full says node
// was refused for want of room.
func (s *Sim) landOn(p *drain.Pod, node string) (to string, full bool) {
	pl := s.m.placement(s.fleet, p.Spec)
	g := groupOf(p)
	rules := s.m.rulesFor(g)
	if pos, ok := s.m.position(pl, node); ok {
		nodes := s.m.eligible(pl)
		if !s.conflicts(rules, nodes[pos], g, nil) {
			if fits, _ := s.fits(p, nodes[pos], s.m.number(node), nil); fits {
				s.setCursor(pl, (pos+1)%len(nodes))
				return node, false
			}
			s.noteFull(p, node)
			full = true
		}
	}
	s.remember(s.m.searchKey(pl, p, rules, g.toleratesCordon, nil), failure{})
	return "", full
}

// searchKeyOf is p's search key in fleet (as search makes it, without a
// node it leaves) and a number for it, kept on the pod's group: the key is
// the same for its every pod for as long as the fleet is.
func (m *Model) searchKeyOf(fleet *sched.Fleet, p *drain.Pod) (int32, noRoomKey) {
	g := groupOf(p)
	if g.keyed == fleet && fleet != nil {
		return g.keyID, m.keyList[g.keyID]
	}
	k := m.searchKey(m.placement(fleet, p.Spec), p, m.rulesFor(g), g.toleratesCordon, nil)
	id, ok := m.keyIDs[k]
	if !ok {
		if m.keyIDs == nil {
			m.keyIDs = map[noRoomKey]int32{}
		}
		id = int32(len(m.keyList))
		m.keyIDs[k] = id
		m.keyList = append(m.keyList, k)
	}
	g.keyed, g.keyID = fleet, id
	return id, k
}

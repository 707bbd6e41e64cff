package placement

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// Uncordon makes node schedulable again and lets Pending replacements land.
//
// A rollout uncordons every node it upgrades while the replacements of a
// full fleet wait (on packed, 5,000 uncordons with a thousand pods
// waiting), and a search per waiting pod and uncordon was a sixth of
// plan --all's time. Waiting pods that ask the same of a node (one search
// key) are decided together instead: a key whose search failed since room
// was last freed fits on no node but, now, perhaps on node (room freed
// anywhere ends every remembered failure, noroom.go), so its pods test
// node alone; once one of a key's pods finds no node, the key's later
// pods find none either, as landing only takes room. A pod with topology
// spread constraints is searched every time: its key leaves them out, and
// its failure may end when another pod lands. The pods are still taken in
// the order they wait, as the scheduler's queue would.
func (s *Sim) Uncordon(node string) []drain.Eviction {
	before := s.room
	if i, ok := s.m.order[node]; ok {
		s.cordonSet.Remove(i)
	} else {
		delete(s.cordoned, node)
	}
	s.room.freed++
	var landed []drain.Eviction
	decided := map[int32]waitState{}
	s.waiting.visit(func(p *drain.Pod, id int32, spread bool) (bool, bool) {
		to := ""
		if spread {
			to, _ = s.search(p, false, true) // who stays Pending is not told why
		} else {
			to = s.landWaiting(p, id, node, before, decided)
		}
		if to == "" {
			return false, !spread && decided[id] == stays
		}
		s.move(p, to)
		s.setHealthy(p, true)
		landed = append(landed, drain.Eviction{Pod: p, To: to})
		return true, false
	})
	return landed
}

// landWaiting is where a waiting pod without spread constraints, of search
// key id, lands after the uncordon of node ("" nowhere), decided per key.
func (s *Sim) landWaiting(p *drain.Pod, id int32, node string, before noRoom, decided map[int32]waitState) string {
	st, seen := decided[id]
	if !seen {
		st = s.waitState(s.m.keyList[id], before)
	}
	to := ""
	switch st {
	case onlyHere:
		to = s.landOn(p, node)
	case searches:
		to, _ = s.search(p, false, true)
	}
	if to == "" && remembers {
		st = stays
	}
	decided[id] = st
	return to
}

// waitState is what an uncordon does with a waiting pod's search key.
type waitState uint8

const (
	searches waitState = iota // a search of every node
	onlyHere                  // the uncordoned node alone
	stays                     // nothing: a pod of the key just found no node
)

// waitState decides for the first pod of a key: onlyHere when its search
// was remembered to fail under the room as it was before the uncordon.
func (s *Sim) waitState(key noRoomKey, before noRoom) waitState {
	if _, failed := s.failedUnder(key, key.tolerates, before); failed {
		return onlyHere
	}
	return searches
}

// landOn is search for a pod that fits nowhere but perhaps on node: node
// when p's constraints admit it and it has room, as search would find it,
// cursor and all; else "", and the failure is remembered.
func (s *Sim) landOn(p *drain.Pod, node string) string {
	pl := s.m.placement(s.fleet, p.Spec)
	nodes := s.m.eligible(pl)
	g := groupOf(p)
	rules := s.m.rulesFor(g)
	pos, ok := slices.BinarySearchFunc(nodes, node, func(n *corev1.Node, name string) int { return strings.Compare(n.Name, name) })
	if ok && !s.conflicts(rules, nodes[pos], g, nil) {
		if fits, _ := s.fits(p, nodes[pos], nil); fits {
			s.setCursor(pl, (pos+1)%len(nodes))
			return node
		}
		s.noteFull(p, node)
	}
	s.remember(searchKey(pl, p, rules, g.toleratesCordon, nil), failure{})
	return ""
}

// searchKeyOf is p's search key in fleet (as search makes it, without a
// node it leaves) and a number for it, kept on the pod's group: the key is
// the same for its every pod for as long as the fleet is.
func (m *Model) searchKeyOf(fleet *sched.Fleet, p *drain.Pod) (int32, noRoomKey) {
	g := groupOf(p)
	if g.keyed == fleet && fleet != nil {
		return g.keyID, m.keyList[g.keyID]
	}
	k := searchKey(m.placement(fleet, p.Spec), p, m.rulesFor(g), g.toleratesCordon, nil)
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

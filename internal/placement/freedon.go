package placement

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// Room freed per kind of request.
//
// A rollout uncordons every node it upgrades while the replacements it
// evicted wait for room. Counted as a move, an uncordon ended every
// remembered failure, and each uncordon decided every waiting search key
// anew: on the capacity shape at 15,000 nodes, 1,875 uncordons times 954
// keys, the largest cost of plan --all, growing with the square of the
// fleet. Yet an uncordoned node gives room only to the pods its placement
// admits and it has room for, and the waiting pods of those kinds land on
// it first: once they have, the node has room left for few kinds of
// request, often none. So room freed is counted per kind of request (a
// placement and what the pod asks of a node, fitKey, numbered), and an
// uncordon counts it only for the kinds its node has room for once the
// waiting pods have landed (freedOn). A failure holds while neither the
// moves (noRoom) nor its kind's count changed.

// unkeyed is the kind of a pod fitKeyOf cannot key: every uncordon counts
// room freed for it.
const unkeyed = 0

// fitInfo is a numbered kind of request and a pod that asks it.
type fitInfo struct {
	key fitKey
	rep *drain.Pod
}

// fitID numbers p's kind of request in pl (unkeyed when fitKeyOf cannot
// key it), kept on p's group per placement: its pods share their spec.
func (m *Model) fitID(pl *sched.Placement, p *drain.Pod) int32 {
	g := groupOf(p)
	if g.fitPl == pl && pl != nil {
		return g.fitID
	}
	if m.fits == nil {
		m.fits = []fitInfo{{}} // unkeyed
	}
	id := int32(unkeyed)
	if k, ok := fitKeyOf(pl, p); ok {
		known := false
		if id, known = m.fitIDs[k]; !known {
			if m.fitIDs == nil {
				m.fitIDs = map[fitKey]int32{}
			}
			id = int32(len(m.fits))
			m.fitIDs[k] = id
			m.fits = append(m.fits, fitInfo{k, p})
		}
	}
	g.fitPl, g.fitID = pl, id
	return id
}

// fitFreedFor is the room freed for kind fit so far, as the Sim counted.
func (s *Sim) fitFreedFor(fit int32) int32 {
	if fit >= 0 && int(fit) < len(s.fitFreed) {
		return s.fitFreed[fit]
	}
	return 0
}

// hasRoomFor says whether n, schedulable, has room now for a pod of kind
// fit whose constraints admit it; for an unkeyed kind, always.
func (s *Sim) hasRoomFor(fit int32, n *corev1.Node) bool {
	if fit == unkeyed {
		return true
	}
	f := s.m.fits[fit]
	if _, ok := s.m.position(f.key.pl, n.Name); !ok {
		return false
	}
	ok, _ := s.fits(f.rep, n, s.m.number(n.Name), nil)
	return ok
}

// freedOn counts the room n's uncordon freed, once the pods waiting for
// it have landed: for every kind of request n has room for.
func (s *Sim) freedOn(n *corev1.Node) {
	if len(s.fitFreed) < len(s.m.fits) {
		s.fitFreed = append(s.fitFreed, make([]int32, len(s.m.fits)-len(s.fitFreed))...)
	}
	for fit := range s.fitFreed {
		if s.hasRoomFor(int32(fit), n) {
			s.fitFreed[fit]++
		}
	}
}

// position is where node (by name) stands among pl's eligible nodes, and
// whether it is one.
func (m *Model) position(pl *sched.Placement, node string) (int, bool) {
	return slices.BinarySearchFunc(m.eligible(pl), node, func(n *corev1.Node, name string) int { return strings.Compare(n.Name, name) })
}

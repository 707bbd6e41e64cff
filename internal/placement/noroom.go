package placement

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/placement/layered"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// A search that found no node stays failed until room is freed where its
// pod could use it: landing a pod only takes room. On full nodes a drain
// would otherwise scan the whole fleet for each of its pods, in each
// replay of the drain, and a fleet of full nodes took time cubic in its
// size. The Sim counts the moves that may free room, and a failed search
// is remembered with the counts it saw. An uncordon frees room only for
// the kinds of request its node has room for once the pods waiting for it
// have landed (freedOn), and counts per kind of request: counted as a
// move, every uncordon ended every failure, and a rollout's thousands of
// uncordons each re-decided every waiting pod (Uncordon).
type noRoom struct {
	freed         int // moves off a schedulable node, of a pod that anti-affinity counts
	freedCordoned int // moves off a node the Sim cordoned: only a pod tolerating the cordon gains
	// cordons and uncordons only end no failure (an uncordon counts in
	// fitFreed), but the reason (how many nodes are unschedulable) is
	// worded anew after one.
	cordons int
}

// noRoomKey is one search: what the pod asks of a node (its placement and
// requests, numbered: fitID), whether it tolerates a cordon, its
// anti-affinity group when rules apply to it, and for a dry run the node
// the pod leaves. Pods that differ in nothing else fail alike, so the
// pending replicas of many workloads share one failed search.
type noRoomKey struct {
	fit       int32
	tolerates bool
	g         *group
	spec      *corev1.PodSpec // only for a pod fitKeyOf cannot key (fit 0)
	self      string
}

// searchKey is p's noRoomKey in placement pl.
func (m *Model) searchKey(pl *sched.Placement, p *drain.Pod, rules []rule, tolerates bool, self *corev1.Node) noRoomKey {
	k := noRoomKey{fit: m.fitID(pl, p), tolerates: tolerates}
	if k.fit == unkeyed {
		k.spec = p.Spec
	}
	if len(rules) > 0 {
		k.g = groupOf(p)
	}
	if self != nil {
		k.self = self.Name
	}
	return k
}

// remembers is false only in the test that compares every shortcut with
// searches run in full: no failure and no full node is remembered.
var remembers = true

// failure is a search that found no node; why is worded only when a
// caller wanted the reason (a Quiet Sim and dry runs do not), and holds
// while no node is cordoned.
type failure struct {
	at     noRoom
	fit    int32 // the key's kind of request (noRoomKey.fit)
	fitAt  int32 // the room freed for it then (fitFreed)
	why    string
	worded bool
}

// failed returns the remembered failure when the search k is known to
// fail: a failure holds while no room was freed since it was found where
// its pod could use it (for a pod that tolerates a cordon, no room on a
// cordoned node either).
func (s *Sim) failed(k noRoomKey) (failure, bool) {
	f, ok := s.failures.Get(k)
	if !ok || !remembers || !s.mayHold(f) || (k.tolerates && f.at.freedCordoned != s.room.freedCordoned) {
		return failure{}, false
	}
	return f, true
}

func (s *Sim) remember(k noRoomKey, f failure) {
	if s.failures.OwnLen() >= s.prune {
		s.failures.KeepOwn(s.mayHold)
		s.prune = 2*s.failures.OwnLen() + 1024
	}
	f.at, f.fit, f.fitAt = s.room, k.fit, s.fitFreedFor(k.fit)
	s.failures.Set(k, f)
}

// cloneFailures shares the failures with a clone; the levels it merges
// keep only those that may still hold.
func (s *Sim) cloneFailures() layered.Map[noRoomKey, failure] {
	return s.failures.CloneKeeping(s.mayHold)
}

// mayHold says whether failure f may still hold: room freed since it was
// found ends it for good (the counts only grow). The failures that cannot
// are dropped as they pile up (remember), as a long simulation would
// otherwise keep every failure it ever met.
func (s *Sim) mayHold(f failure) bool {
	return f.at.freed == s.room.freed && f.fitAt == s.fitFreedFor(f.fit)
}

// leaves notes that p left node from, freeing room there and, when
// anti-affinity counts p, in from's domains. A cordoned node's room, and
// that of domains it alone makes up, is of use only to a pod that
// tolerates the cordon until the node is uncordoned, which counts it
// anew (freedOn): a rollout evicts pods of hostname anti-affinity from
// every node it drains, and counting each such move as room freed
// anywhere ended every failure.
func (s *Sim) leaves(p *drain.Pod, from string) {
	if g := groupOf(p); s.Cordoned(from) && (g == nil || len(g.rules) == 0 || g.nodeScoped) {
		s.room.freedCordoned++
		return
	}
	s.room.freed++
}

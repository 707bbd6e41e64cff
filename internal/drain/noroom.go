package drain

import "github.com/drvcheck/drvcheck/internal/sched"

// A search that found no node stays failed until room is freed where its
// pod could use it: landing a pod only takes room. On full nodes a drain
// would otherwise scan the whole fleet for each of its pods, in each
// replay of the drain, and a fleet of full nodes took time cubic in its
// size. The Sim counts the moves that may free room, and a failed search
// is remembered with the counts it saw.
type noRoom struct {
	freed         int // moves off a schedulable node, of a pod that anti-affinity counts, uncordons
	freedCordoned int // moves off a node the Sim cordoned: only a pod tolerating the cordon gains
}

// noRoomKey is one search: a placement, the pod's anti-affinity group, and
// for a dry run the node the pod leaves.
type noRoomKey struct {
	pl   *sched.Placement
	g    *group
	self string
}

// failure is a search that found no node; why is worded only when a
// caller wanted the reason (a Quiet Sim and dry runs do not).
type failure struct {
	at     noRoom
	why    string
	worded bool
}

// failed returns the remembered failure when the search k is known to fail.
func (s *Sim) failed(k noRoomKey, tolerates bool) (failure, bool) {
	f, ok := s.failures[k]
	if !ok || f.at.freed != s.room.freed || (tolerates && f.at.freedCordoned != s.room.freedCordoned) {
		return failure{}, false
	}
	return f, true
}

func (s *Sim) remember(k noRoomKey, f failure) {
	if s.failures == nil {
		s.failures = map[noRoomKey]failure{}
	}
	f.at = s.room
	s.failures[k] = f
}

// leaves notes that p left node from, freeing room there and, when
// anti-affinity counts p, in from's domains.
func (s *Sim) leaves(p *Pod, from string) {
	if s.cordoned[from] && (p.group == nil || len(p.group.rules) == 0) {
		s.room.freedCordoned++
		return
	}
	s.room.freed++
}

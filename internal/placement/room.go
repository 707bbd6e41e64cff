package placement

import (
	"slices"
	"sort"

	"github.com/drvcheck/drvcheck/internal/drain"
)

// Refusal is a budget that refuses evictions from a node for good, and the
// smallest change of it after which the drain passes.
type Refusal struct {
	Budget *drain.Budget
	Pods   []*drain.Pod  // its pods on the node that stay
	Last   drain.Outcome // the eviction API's last answer
	Change drain.Change
}

// Overlap is a pod under more than one budget: every eviction of it is a 500.
type Overlap struct {
	Pod     *drain.Pod
	Budgets []*drain.Budget
}

// Room is the budget side of draining one node.
type Room struct {
	Node string
	// Drain is the drain run with --force and --delete-emptydir-data, so
	// that budgets are judged apart from the filters.
	Drain    drain.DrainResult
	Refusals []Refusal
	Overlaps []Overlap
}

// all is the flags under which only budgets can stop a drain.
var all = drain.Flags{Force: true, DeleteEmptyDir: true}

// Room drains node on a copy of s and names every budget that refuses for
// good, each with its smallest change: the least relaxation, found by
// replaying the drain, after which that budget no longer refuses (with the
// other refusing budgets out of the way).
func (s *Sim) Room(node string) Room { return s.RoomIn(node, drain.Phase{Name: "drain"}) }

// RoomIn is Room for the pods one phase removes.
func (s *Sim) RoomIn(node string, phase drain.Phase) Room {
	phase.Flags, phase.Strict = all, false
	trial := s.Clone()
	r := Room{Node: node, Drain: trial.Run(node, phase)}
	index := map[*drain.Budget]int{}
	for _, bl := range r.Drain.Blocked {
		if bl.Outcome.Code == drain.ServerError {
			r.Overlaps = append(r.Overlaps, Overlap{Pod: bl.Pod, Budgets: bl.Pod.Budgets})
			continue
		}
		b := bl.Pod.Budgets[0]
		i, seen := index[b]
		if !seen {
			i = len(r.Refusals)
			index[b] = i
			r.Refusals = append(r.Refusals, Refusal{Budget: b})
		}
		r.Refusals[i].Pods = append(r.Refusals[i].Pods, bl.Pod)
		r.Refusals[i].Last = bl.Outcome
	}
	for i := range r.Refusals {
		r.Refusals[i].Change = s.smallestChange(node, phase, r.Refusals[i].Budget, r.Refusals)
	}
	return r
}

// smallestChange searches the least x by which b's desired healthy must drop
// for the drain of node to pass b (more room never hurts, so the search is
// a bisection), and words it as a change of b's spec.
func (s *Sim) smallestChange(node string, phase drain.Phase, b *drain.Budget, refusing []Refusal) drain.Change {
	asInt := drain.NeverAllows(b) != ""
	now := s.Count(b)
	base := now.Desired
	if asInt {
		base = now.Healthy
	}
	blocked := func(x int32) bool {
		c := s.Clone()
		c.Flags, c.Quiet = all, true
		for _, o := range refusing {
			if o.Budget != b {
				c.relax(o.Budget, 1<<20, drain.NeverAllows(o.Budget) != "")
			}
		}
		c.relax(b, x, asInt)
		for _, bl := range c.Run(node, phase).Blocked {
			if bl.Outcome.Code != drain.ServerError && bl.Pod.Budgets[0] == b {
				return true
			}
		}
		return false
	}
	// Relaxing by one per pod of b on the node always does, so the search
	// stops there, not at base (up to 2^31 with replicas counted).
	search := func(n int32) int32 {
		return int32(sort.Search(int(n), func(i int) bool { return !blocked(int32(i + 1)) })) + 1
	}
	limit := min(base, s.podsUnder(node, b))
	x := search(limit)
	if x > limit && limit < base {
		x = search(base)
	}
	if x > base {
		return drain.ChangeFor(b, -1) // even 0 desired does not do: too few healthy pods
	}
	return drain.ChangeFor(b, base-x)
}

// podsUnder counts b's pods on node now.
func (s *Sim) podsUnder(node string, b *drain.Budget) int32 {
	var n int32
	for _, p := range s.PodsOn(node) {
		if slices.Contains(p.Budgets, b) {
			n++
		}
	}
	return n
}

// WithoutBudgets copies s with every budget out of the way, to see what a
// drain does once the budget room is made.
func (s *Sim) WithoutBudgets() *Sim {
	c := s.Clone()
	for _, b := range s.m.Budgets {
		c.relax(b, 1<<20, drain.NeverAllows(b) != "")
	}
	return c
}

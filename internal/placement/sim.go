package placement

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/placement/layered"
	"github.com/drvcheck/drvcheck/internal/placement/nodeset"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// Sim replays cordons, drains and uncordons on top of a model without
// changing it. It keeps only what moved, so a Sim is cheap to make and to
// clone.
type Sim struct {
	Flags drain.Flags
	// Quiet Sims do not word why a replacement finds no node (Eviction.Why
	// stays ""): wording one tests every node, and callers that read only
	// outcomes, as check does, need none.
	Quiet bool

	m         *Model
	fleet     *sched.Fleet                    // the fleet replacements are placed in
	at        layered.Map[*drain.Pod, string] // where a moved pod is now ("" pending)
	health    layered.Map[*drain.Pod, bool]   // healthy, for pods whose health changed
	gone      layered.Map[*drain.Pod, bool]   // deleted for good (no controller)
	arrived   layered.Map[string, []*drain.Pod]
	waiting   waiting         // evicted pods whose replacement found no node
	cordoned  map[string]bool // cordoned nodes the model does not hold; its own are cordonSet
	cursor    map[*sched.Placement]int
	room      noRoom
	fitFreed  []int32 // room freed per kind of request, by number (freedon.go)
	failures  layered.Map[noRoomKey, failure]
	prune     int // prune failures when there are this many (noroom.go)
	delta     layered.Map[countKey, int]
	usedDelta use                    // what moved pods take, since the model
	freed     nodeset.Set            // the nodes usedDelta leaves with less taken (roomy.go)
	changed   nodeset.Set            // the nodes usedDelta takes more or less of
	cordonSet nodeset.Set            // the nodes cordoned, in the same numbering
	filled    map[fitKey]nodeset.Set // nodes found full, per request (roomy.go)
	scratch   nodeset.Set            // the nodes whyNot tests, reused; a clone's own
	// stamp is, by the model's order, the number of the last change of
	// what a node's pods take, unique across the model's Sims (unfit).
	stamp   nodeset.Stamps
	budgets layered.Map[*drain.Budget, *budgetState] // a frozen state is copied before it changes (state)
}

// budgetState is a budget's numbers during a simulation. The disruption
// controller is taken to catch up after every eviction: a replacement that
// lands counts as healthy again, so a budget refuses for good only when it
// cannot recover.
type budgetState struct {
	expected, desired, healthy int32
	syncErr                    string
	// relax lowers desired, to search for the smallest change; asInt
	// replaces the spec with an integer minAvailable of intBase-relax.
	relax   int32
	asInt   bool
	intBase int32
}

// NewSim starts a simulation from the model as read, with the drain flags.
// Its maps are made on first write: most simulations touch a few pods.
func (m *Model) NewSim(f drain.Flags) *Sim {
	return &Sim{Flags: f, m: m, fleet: m.fleet}
}

// Clone copies the simulation.
func (s *Sim) Clone() *Sim {
	c := *s
	c.at, c.health, c.gone, c.arrived, c.budgets = s.at.Clone(), s.health.Clone(), s.gone.Clone(), s.arrived.Clone(), s.budgets.Clone()
	c.waiting = s.waiting.clone()
	c.cordoned, c.cursor, c.delta = maps.Clone(s.cordoned), maps.Clone(s.cursor), s.delta.Clone()
	c.failures, c.fitFreed = s.cloneFailures(), slices.Clone(s.fitFreed)
	c.usedDelta = s.usedDelta.clone()
	c.freed, c.changed, c.cordonSet, c.stamp = slices.Clone(s.freed), slices.Clone(s.changed), slices.Clone(s.cordonSet), s.stamp.Share()
	c.filled, c.scratch = nil, nil
	for k, f := range s.filled {
		if c.filled == nil {
			c.filled = map[fitKey]nodeset.Set{}
		}
		c.filled[k] = slices.Clone(f)
	}
	return &c
}

// Model returns the model the simulation runs on.
func (s *Sim) Model() *Model { return s.m }

// NodeOf returns where p is now ("" when on no node).
func (s *Sim) NodeOf(p *drain.Pod) string {
	if n, ok := s.at.Get(p); ok {
		return n
	}
	return p.Node
}

// Cordon marks node unschedulable, as kubectl cordon and the first step of
// every drain do.
func (s *Sim) Cordon(node string) {
	if s.Cordoned(node) {
		return
	}
	s.room.cordons++
	if i, ok := s.m.order[node]; ok {
		s.cordonSet.Add(i)
		return
	}
	if s.cordoned == nil {
		s.cordoned = map[string]bool{}
	}
	s.cordoned[node] = true
}

// Cordoned says whether the simulation cordoned node and has not
// uncordoned it. The model's nodes are a set by their order, which a
// clone copies at a bit per node: a rollout clones its simulation for
// every node a budget blocks, with a quarter of the fleet cordoned.
func (s *Sim) Cordoned(node string) bool {
	if i, ok := s.m.order[node]; ok {
		return s.cordonSet.Has(i)
	}
	return s.cordoned[node]
}

// PodsOn lists the pods on node now, by namespace and name.
func (s *Sim) PodsOn(node string) []*drain.Pod {
	seen := map[*drain.Pod]bool{}
	var out []*drain.Pod
	arrived, _ := s.arrived.Get(node)
	for _, list := range [][]*drain.Pod{s.m.PodsOn(node), arrived} {
		for _, p := range list {
			if gone, _ := s.gone.Get(p); !seen[p] && !gone && s.NodeOf(p) == node {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	drain.SortPods(out)
	return out
}

// Drain cordons node and evicts its pods as kubectl drain --ignore-daemonsets
// does: the filters first (any refusal and no pod is evicted), then
// evictions, retried while any succeeds, as kubectl retries a 429 every 5s.
// Pods whose replacement can land elsewhere go first, since a drain can
// only pass in that order. A 500 or 403 is final.
func (s *Sim) Drain(node string) drain.DrainResult {
	return s.Run(node, drain.Phase{Name: "drain", Flags: s.Flags})
}

// Run cordons node and removes the pods phase takes, as Drain does with
// every pod. A pod the filters keep (a DaemonSet or mirror pod) fails a
// Strict phase before anything is evicted.
func (s *Sim) Run(node string, phase drain.Phase) drain.DrainResult {
	s.Cordon(node)
	res, evict := phase.Screen(node, s.PodsOn(node))
	if len(res.Refused) > 0 {
		return res
	}
	evict = s.replaceableFirst(evict)
	last := map[*drain.Pod]drain.Outcome{}
	for progress := true; progress && len(evict) > 0; {
		progress = false
		var retry []*drain.Pod
		for _, p := range evict {
			o := s.evict(p)
			switch o.Code {
			case drain.Evicted:
				res.Evicted = append(res.Evicted, s.replace(p))
				progress = true
			case drain.TooManyRequests:
				retry = append(retry, p)
				last[p] = o
			default:
				res.Blocked = append(res.Blocked, drain.Block{Pod: p, Outcome: o})
			}
		}
		evict = retry
	}
	for _, p := range evict {
		res.Blocked = append(res.Blocked, drain.Block{Pod: p, Outcome: last[p]})
	}
	return res
}

// evict asks the eviction API about p under its budgets' current numbers.
func (s *Sim) evict(p *drain.Pod) drain.Outcome {
	gates := make([]*drain.Gate, len(p.Budgets))
	for i, b := range p.Budgets {
		gates[i] = s.gate(b)
	}
	return drain.Evict(s.candidate(p), gates)
}

// candidate is p as the eviction API sees it now: a replacement that landed
// is Running and Ready.
func (s *Sim) candidate(p *drain.Pod) drain.Candidate {
	if _, moved := s.at.Get(p); moved {
		return drain.Candidate{Phase: corev1.PodRunning, Ready: true}
	}
	return p.Candidate()
}

// replace removes p from its node and lands its replacement, when it has a
// controller, on the first node that fits; otherwise it waits Pending. A
// finished pod, or one without a controller, is gone for good.
func (s *Sim) replace(p *drain.Pod) drain.Eviction {
	e := drain.Eviction{Pod: p, From: s.NodeOf(p)}
	s.setHealthy(p, false)
	s.move(p, "")
	if p.Controller == "" || p.Phase == corev1.PodSucceeded || p.Phase == corev1.PodFailed {
		s.gone.Set(p, true)
		e.Gone = true
		return e
	}
	e.To, e.Why = s.find(p)
	if e.To == "" {
		s.waiting.add(s, p)
		return e
	}
	s.move(p, e.To)
	s.setHealthy(p, true)
	return e
}

// replaceableFirst orders pods whose replacement would land now before the
// others, keeping their order otherwise.
func (s *Sim) replaceableFirst(ps []*drain.Pod) []*drain.Pod {
	var yes, no []*drain.Pod
	for _, p := range ps {
		if s.wouldLand(p) {
			yes = append(yes, p)
		} else {
			no = append(no, p)
		}
	}
	return append(yes, no...)
}

// wouldLand tries p's replacement without moving anything.
func (s *Sim) wouldLand(p *drain.Pod) bool {
	if p.Controller == "" {
		return false
	}
	to, _ := s.search(p, true, true)
	return to != ""
}

func (s *Sim) move(p *drain.Pod, to string) {
	if from := s.NodeOf(p); from != "" {
		s.leaves(p, from)
		s.m.addCounts(&s.delta, p, from, -1)
		s.m.addOn(&s.usedDelta, from, p, -1)
		s.noteUse(from)
		s.unfill(from)
	}
	s.at.Set(p, to)
	if to != "" {
		s.m.addCounts(&s.delta, p, to, 1)
		s.m.addOn(&s.usedDelta, to, p, 1)
		// A frozen list is shared: capped at its length, the append
		// copies it.
		list, _ := s.arrived.Get(to)
		s.arrived.Set(to, append(list[:len(list):len(list)], p))
		s.noteUse(to)
	}
}

func (s *Sim) isHealthy(p *drain.Pod) bool {
	if h, ok := s.health.Get(p); ok {
		return h
	}
	return p.Healthy()
}

// setHealthy keeps the budgets' healthy counts in step with p.
func (s *Sim) setHealthy(p *drain.Pod, h bool) {
	if s.isHealthy(p) == h {
		return
	}
	s.health.Set(p, h)
	d := int32(-1)
	if h {
		d = 1
	}
	for _, b := range p.Budgets {
		s.state(b).healthy += d
	}
}

func (s *Sim) state(b *drain.Budget) *budgetState {
	if bs, ok := s.budgets.Own(b); ok {
		return bs
	}
	bs := s.stateNow(b) // a frozen state is shared with a clone
	s.budgets.Set(b, &bs)
	return &bs
}

// stateNow is b's numbers now, to read.
func (s *Sim) stateNow(b *drain.Budget) budgetState {
	if bs, ok := s.budgets.Get(b); ok {
		return *bs
	}
	c := b.Count
	return budgetState{expected: c.Expected, desired: c.Desired, healthy: c.Healthy, syncErr: c.SyncErr}
}

// Count is b's status now.
func (s *Sim) Count(b *drain.Budget) drain.Count {
	bs := s.stateNow(b)
	c := drain.Count{Expected: bs.expected, Desired: bs.desired - bs.relax, Healthy: bs.healthy, SyncErr: bs.syncErr}
	if bs.asInt {
		c.Expected, c.Desired, c.SyncErr = b.Size(), bs.intBase-bs.relax, ""
	}
	c.Allowed = drain.Allowed(c.Expected, c.Desired, c.Healthy, c.SyncErr != "")
	return c
}

func (s *Sim) gate(b *drain.Budget) *drain.Gate { return b.Gate(s.Count(b)) }

// relax lowers b's desired healthy by x; with asInt, b is taken as an
// integer minAvailable of its healthy pods now, minus x.
func (s *Sim) relax(b *drain.Budget, x int32, asInt bool) {
	bs := s.state(b)
	bs.relax, bs.asInt = x, asInt
	if asInt {
		bs.intBase = bs.healthy
	}
}

func (s *Sim) setCursor(pl *sched.Placement, i int) {
	if s.cursor == nil {
		s.cursor = map[*sched.Placement]int{}
	}
	s.cursor[pl] = i
}

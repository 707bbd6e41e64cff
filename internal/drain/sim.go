package drain

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/sched"
)

// Sim replays cordons, drains and uncordons on top of a model without
// changing it. It keeps only what moved, so a Sim is cheap to make and to
// clone.
type Sim struct {
	Flags Flags
	// Quiet Sims do not word why a replacement finds no node (Eviction.Why
	// stays ""): wording one tests every node, and callers that read only
	// outcomes, as check does, need none.
	Quiet bool

	m         *Model
	fleet     *sched.Fleet          // the fleet replacements are placed in
	at        layered[*Pod, string] // where a moved pod is now ("" pending)
	health    layered[*Pod, bool]   // healthy, for pods whose health changed
	gone      layered[*Pod, bool]   // deleted for good (no controller)
	arrived   layered[string, []*Pod]
	pending   []*Pod // evicted pods whose replacement found no node
	cordoned  map[string]bool
	cursor    map[*sched.Placement]int
	room      noRoom
	failures  layered[noRoomKey, failure]
	prune     int // prune failures when there are this many (noroom.go)
	delta     layered[countKey, int]
	usedDelta use                // what moved pods take, since the model
	freed     nodeSet            // the nodes usedDelta leaves with less taken (roomy.go)
	changed   nodeSet            // the nodes usedDelta takes more or less of
	cordonSet nodeSet            // the nodes cordoned, in the same numbering
	filled    map[fitKey]nodeSet // nodes found full, per request (roomy.go)
	// stamp is, by the model's order, the number of the last change of
	// what a node's pods take, unique across the model's Sims (unfit).
	stamp   stamps
	budgets layered[*Budget, *budgetState] // a frozen state is copied before it changes (state)
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

// Eviction is one pod a drain removed, and where its replacement went.
type Eviction struct {
	Pod      *Pod
	From, To string // To is "" when the replacement stays Pending
	Gone     bool   // no controller, or finished: the pod is deleted for good
	Why      string // why no node fits the replacement
}

// Block is a pod the eviction API refuses.
type Block struct {
	Pod     *Pod
	Outcome Outcome
}

// DrainResult is the outcome of draining one node.
type DrainResult struct {
	Node    string
	Evicted []Eviction
	Blocked []Block
	// Refused are pods the drain's filters refuse with the Sim's flags;
	// kubectl then evicts no pod at all.
	Refused             []*Pod
	NeedsForce          []*Pod
	NeedsDeleteEmptyDir []*Pod
	Stays               []*Pod // DaemonSet and mirror pods
	// Kept are DaemonSet and mirror pods a Strict phase had to remove:
	// GPU-pod deletion fails at once on them.
	Kept []*Pod
}

// Done reports whether the drain emptied the node.
func (r DrainResult) Done() bool { return len(r.Blocked) == 0 && len(r.Refused) == 0 }

// NewSim starts a simulation from the model as read, with the drain flags.
// Its maps are made on first write: most simulations touch a few pods.
func (m *Model) NewSim(f Flags) *Sim {
	return &Sim{Flags: f, m: m, fleet: m.fleet}
}

// Clone copies the simulation.
func (s *Sim) Clone() *Sim {
	c := *s
	c.at, c.health, c.gone, c.arrived, c.budgets = s.at.clone(), s.health.clone(), s.gone.clone(), s.arrived.clone(), s.budgets.clone()
	c.pending = append([]*Pod(nil), s.pending...)
	c.cordoned, c.cursor, c.delta = maps.Clone(s.cordoned), maps.Clone(s.cursor), s.delta.clone()
	c.failures = s.cloneFailures()
	c.usedDelta = s.usedDelta.clone()
	c.freed, c.changed, c.cordonSet, c.stamp = slices.Clone(s.freed), slices.Clone(s.changed), slices.Clone(s.cordonSet), s.stamp.clone()
	c.filled = nil
	for k, f := range s.filled {
		if c.filled == nil {
			c.filled = map[fitKey]nodeSet{}
		}
		c.filled[k] = slices.Clone(f)
	}
	return &c
}

// Model returns the model the simulation runs on.
func (s *Sim) Model() *Model { return s.m }

// NodeOf returns where p is now ("" when on no node).
func (s *Sim) NodeOf(p *Pod) string {
	if n, ok := s.at.get(p); ok {
		return n
	}
	return p.Node
}

// Cordon marks node unschedulable, as kubectl cordon and the first step of
// every drain do.
func (s *Sim) Cordon(node string) {
	if s.cordoned == nil {
		s.cordoned = map[string]bool{}
	}
	if !s.cordoned[node] {
		s.room.cordons++
		if i, ok := s.m.order[node]; ok {
			s.cordonSet.set(i)
		}
	}
	s.cordoned[node] = true
}

// Cordoned says whether the simulation cordoned node and has not
// uncordoned it.
func (s *Sim) Cordoned(node string) bool { return s.cordoned[node] }

// PodsOn lists the pods on node now, by namespace and name.
func (s *Sim) PodsOn(node string) []*Pod {
	seen := map[*Pod]bool{}
	var out []*Pod
	arrived, _ := s.arrived.get(node)
	for _, list := range [][]*Pod{s.m.onNode[node], arrived} {
		for _, p := range list {
			if gone, _ := s.gone.get(p); !seen[p] && !gone && s.NodeOf(p) == node {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sortPods(out)
	return out
}

// Drain cordons node and evicts its pods as kubectl drain --ignore-daemonsets
// does: the filters first (any refusal and no pod is evicted), then
// evictions, retried while any succeeds, as kubectl retries a 429 every 5s.
// Pods whose replacement can land elsewhere go first, since a drain can
// only pass in that order. A 500 or 403 is final.
func (s *Sim) Drain(node string) DrainResult {
	return s.Run(node, Phase{Name: "drain", Flags: s.Flags})
}

// Run cordons node and removes the pods phase takes, as Drain does with
// every pod. A pod the filters keep (a DaemonSet or mirror pod) fails a
// Strict phase before anything is evicted.
func (s *Sim) Run(node string, phase Phase) DrainResult {
	s.Cordon(node)
	res, evict := phase.Screen(node, s.PodsOn(node))
	if len(res.Refused) > 0 {
		return res
	}
	evict = s.replaceableFirst(evict)
	last := map[*Pod]Outcome{}
	for progress := true; progress && len(evict) > 0; {
		progress = false
		var retry []*Pod
		for _, p := range evict {
			o := s.evict(p)
			switch o.Code {
			case Evicted:
				res.Evicted = append(res.Evicted, s.replace(p))
				progress = true
			case TooManyRequests:
				retry = append(retry, p)
				last[p] = o
			default:
				res.Blocked = append(res.Blocked, Block{Pod: p, Outcome: o})
			}
		}
		evict = retry
	}
	for _, p := range evict {
		res.Blocked = append(res.Blocked, Block{Pod: p, Outcome: last[p]})
	}
	return res
}

// evict asks the eviction API about p under its budgets' current numbers.
func (s *Sim) evict(p *Pod) Outcome {
	gates := make([]*Gate, len(p.Budgets))
	for i, b := range p.Budgets {
		gates[i] = s.gate(b)
	}
	return Evict(s.candidate(p), gates)
}

// candidate is p as the eviction API sees it now: a replacement that landed
// is Running and Ready.
func (s *Sim) candidate(p *Pod) Candidate {
	if _, moved := s.at.get(p); moved {
		return Candidate{Phase: corev1.PodRunning, Ready: true}
	}
	return p.candidate()
}

// replace removes p from its node and lands its replacement, when it has a
// controller, on the first node that fits; otherwise it waits Pending. A
// finished pod, or one without a controller, is gone for good.
func (s *Sim) replace(p *Pod) Eviction {
	e := Eviction{Pod: p, From: s.NodeOf(p)}
	s.setHealthy(p, false)
	s.move(p, "")
	if p.Controller == "" || p.Phase == corev1.PodSucceeded || p.Phase == corev1.PodFailed {
		s.gone.set(p, true)
		e.Gone = true
		return e
	}
	e.To, e.Why = s.find(p)
	if e.To == "" {
		s.pending = append(s.pending, p)
		return e
	}
	s.move(p, e.To)
	s.setHealthy(p, true)
	return e
}

// replaceableFirst orders pods whose replacement would land now before the
// others, keeping their order otherwise.
func (s *Sim) replaceableFirst(ps []*Pod) []*Pod {
	var yes, no []*Pod
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
func (s *Sim) wouldLand(p *Pod) bool {
	if p.Controller == "" {
		return false
	}
	to, _ := s.search(p, true, true)
	return to != ""
}

func (s *Sim) move(p *Pod, to string) {
	if from := s.NodeOf(p); from != "" {
		s.leaves(p, from)
		s.m.addCounts(&s.delta, p, from, -1)
		s.usedDelta.add(from, p, -1)
		s.noteUse(from)
		s.unfill(from)
	}
	s.at.set(p, to)
	if to != "" {
		s.m.addCounts(&s.delta, p, to, 1)
		s.usedDelta.add(to, p, 1)
		// A frozen list is shared: capped at its length, the append
		// copies it.
		list, _ := s.arrived.get(to)
		s.arrived.set(to, append(list[:len(list):len(list)], p))
		s.noteUse(to)
	}
}

func (s *Sim) isHealthy(p *Pod) bool {
	if h, ok := s.health.get(p); ok {
		return h
	}
	return p.healthy()
}

// setHealthy keeps the budgets' healthy counts in step with p.
func (s *Sim) setHealthy(p *Pod, h bool) {
	if s.isHealthy(p) == h {
		return
	}
	s.health.set(p, h)
	d := int32(-1)
	if h {
		d = 1
	}
	for _, b := range p.Budgets {
		s.state(b).healthy += d
	}
}

func (s *Sim) state(b *Budget) *budgetState {
	if bs, ok := s.budgets.own[b]; ok {
		return bs
	}
	bs := s.stateNow(b) // a frozen state is shared with a clone
	s.budgets.set(b, &bs)
	return &bs
}

// stateNow is b's numbers now, to read.
func (s *Sim) stateNow(b *Budget) budgetState {
	if bs, ok := s.budgets.get(b); ok {
		return *bs
	}
	c := b.Count
	return budgetState{expected: c.Expected, desired: c.Desired, healthy: c.Healthy, syncErr: c.SyncErr}
}

// Count is b's status now.
func (s *Sim) Count(b *Budget) Count {
	bs := s.stateNow(b)
	c := Count{Expected: bs.expected, Desired: bs.desired - bs.relax, Healthy: bs.healthy, SyncErr: bs.syncErr}
	if bs.asInt {
		c.Expected, c.Desired, c.SyncErr = b.Size(), bs.intBase-bs.relax, ""
	}
	c.Allowed = Allowed(c.Expected, c.Desired, c.Healthy, c.SyncErr != "")
	return c
}

func (s *Sim) gate(b *Budget) *Gate { return b.gate(s.Count(b)) }

// relax lowers b's desired healthy by x; with asInt, b is taken as an
// integer minAvailable of its healthy pods now, minus x.
func (s *Sim) relax(b *Budget, x int32, asInt bool) {
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

package plan

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/oneline"
	"github.com/drvcheck/drvcheck/internal/operator"
	"github.com/drvcheck/drvcheck/internal/placement"
)

// Outcomes of a node in a rolling upgrade.
const (
	Upgraded   = "upgraded"    // reached upgrade-done
	Failed     = "failed"      // upgrade-failed: stays cordoned and keeps its slot
	Stuck      = "stuck"       // waits in State for good (a timeout of 0, a missing image)
	Skipped    = "skipped"     // already at the version, labelled to skip, or not managed
	NotStarted = "not-started" // never gets a slot: the rollout halts before it
	NotRolled  = "not-rolled"  // autoUpgrade is off: the operator does not roll it
)

// NodeOutcome is what the rolling upgrade does with one GPU node.
type NodeOutcome struct {
	Node    string `json:"node"`
	Scope   string `json:"scope"`
	Round   int    `json:"round"` // the window it starts in; 0 when it never starts
	Outcome string `json:"outcome"`
	State   string `json:"state"` // the upgrade state it ends in
	// From is the upgrade state read on the node when the rollout began,
	// when that was one of the library's other than upgrade-done.
	From    string    `json:"from,omitempty"`
	Why     []Blocker `json:"why"`
	Evicted []string  `json:"evicted"`
	// Pending are replacements that found no node.
	Pending []string `json:"pending"`
	Note    string   `json:"note,omitempty"`
	// OrderDependent: the operator's order is not deterministic, and in
	// another order this node ends otherwise; it is "one of" the nodes
	// that meet this outcome.
	OrderDependent bool `json:"order_dependent"`
}

// Rolled says whether the rollout reaches the node: neither skipped nor
// left alone with autoUpgrade off.
func (o NodeOutcome) Rolled() bool { return o.Outcome != Skipped && o.Outcome != NotRolled }

// note adds to the outcome's note.
func (o *NodeOutcome) note(s string) {
	if o.Note != "" {
		s = o.Note + "; " + s
	}
	o.Note = s
}

// Scope is the nodes one upgrade policy rolls: every managed node under a
// ClusterPolicy, each NVIDIADriver's own since v26.7.
type Scope struct {
	Name           string          `json:"name"`
	Policy         operator.Policy `json:"policy"`
	Managed        int             `json:"managed"`
	MaxUnavailable int             `json:"max_unavailable"`
	Unavailable    int             `json:"unavailable"` // cordoned or NotReady before the upgrade
	InProgress     int             `json:"in_progress"` // already in the upgrade at the outset, failed ones too
	Slots          int             `json:"slots"`       // nodes that may start at once at the outset
	Halts          bool            `json:"halts"`
	Why            string          `json:"why,omitempty"` // why it halts, or why it does not roll
}

// Rolling is the simulated upgrade of the whole fleet.
type Rolling struct {
	// Cluster names the cluster in plan --all over several (--context).
	Cluster string        `json:"cluster,omitempty"`
	Driver  string        `json:"driver"`
	Scopes  []Scope       `json:"scopes"`
	Nodes   []NodeOutcome `json:"nodes"`
	// Halts is true when some scope stops for good with nodes left.
	Halts bool `json:"halts"`
	// Verdict is the run's one-line answer, and Severity how bad it is:
	// error when a node fails, sticks or never starts, warning when a
	// scope is not rolled at all (VerdictOf).
	Verdict  string `json:"verdict"`
	Severity string `json:"severity,omitempty"`
	// Displaced are the GPU workloads that lose their place while a
	// window's nodes are out: gangs that fit the fleet but not the fleet
	// less the nodes a round of the simulation holds cordoned, and those
	// the rules find at worst (DRV029) in another order. A Deployment's
	// replacements are the simulation's own (NodeOutcome.Pending).
	Displaced []Displaced `json:"displaced"`
	// GangsUnjudged says from which round on gangs were not judged, when
	// packing them at every round went past its bound; "" otherwise.
	GangsUnjudged string `json:"gangs_unjudged,omitempty"`
}

// windowRule is the rule that judges a gang against the rollout's window
// at worst.
const windowRule = "DRV029"

// RollingOptions shape the simulation: each scope's policy comes from the
// operator profile (internal/operator), or is the manual procedure.
type RollingOptions struct {
	Options
	// Policy returns the policy of the scope named, and the scope's name,
	// for a node's owner ("" without a profile).
	Policy func(owner string) (operator.Policy, string)
	// Change, when set, says what the change rolled does to each node's
	// driver pod (change.NoOp, RestartOnly or FullRollout) in place of
	// comparing its driver version with Driver: a change of the
	// driver's configuration other than its version (drvcheck diff).
	Change func(node string) (kind, why string)
}

// Roll simulates the upgrade of every managed GPU node to opt.Driver as
// the GPU Operator's upgrade controller runs it (k8s-operator-libs
// pkg/upgrade): per scope, a sliding window of GetUpgradesAvailable slots;
// each started node cordoned, its pods removed by the policy's phases
// (wait for jobs, GPU-pod deletion, the drain fallback), its driver
// reloaded, and uncordoned unless it was cordoned before. A node that
// fails keeps its slot and its cordon while the others go on; a scope
// halts when no node can start and nodes are left. The operator's order
// is not deterministic: the simulation runs in name order and in reverse,
// and marks the nodes whose outcome differs.
func Roll(m *placement.Model, after After, opt RollingOptions) (*Rolling, error) {
	if err := nodefacts.CheckVersion(opt.Driver); err != nil && opt.Change == nil {
		return nil, err
	}
	scopes, err := scopesOf(m, after, opt)
	if err != nil {
		return nil, err
	}
	after = after.indexed()
	r := &Rolling{Driver: opt.Driver}
	forward := m.NewSim(drain.Flags{})
	backward := m.NewSim(drain.Flags{})
	ahead, behind := newGangWatch(after.Gangs, ""), newGangWatch(after.Gangs, ", nodes in reverse name order")
	for _, sc := range scopes {
		out := sc.roll(forward, ahead, after, opt.Driver, false)
		if !sc.Policy.Manual { // the manual procedure goes in the user's order
			twin := *sc // the same nodes and starts; its own window and verdict
			other := twin.roll(backward, behind, after, opt.Driver, true)
			contested := sc.Halts && sc.contested(out)
			for i := range out {
				o := &out[i]
				if o.Outcome != other[i].Outcome || o.State != other[i].State || contested && o.Outcome != Skipped && !sc.anyOrder[o.Node] {
					o.OrderDependent = true
				}
			}
		}
		r.Nodes = append(r.Nodes, out...)
		r.Scopes = append(r.Scopes, sc.Scope)
		r.Halts = r.Halts || sc.Halts
	}
	slices.SortStableFunc(r.Nodes, func(a, b NodeOutcome) int { return strings.Compare(a.Node, b.Node) })
	r.Displaced = displacedOf(ahead, behind, after.Findings)
	r.GangsUnjudged = unjudgedNote(ahead, behind)
	r.Verdict, r.Severity = VerdictOf(r)
	for i := range r.Nodes {
		o := &r.Nodes[i]
		o.Why, o.Evicted, o.Pending = nonNil(o.Why), nonNilS(o.Evicted), nonNilS(o.Pending)
	}
	return r, nil
}

// scope is a Scope with its nodes, in name order.
type scope struct {
	Scope
	nodes     []*corev1.Node
	unmanaged []NodeOutcome
	// starts is where each node stands at the outset; anyOrder are the
	// nodes that start whatever the order: cordoned before the upgrade,
	// or already in it.
	starts   map[string]start
	anyOrder map[string]bool
	// untolerated are nodes whose driver pod runs under a taint it does
	// not tolerate, each with the taint (unbuilt).
	untolerated []string
	// restart are the nodes whose driver pod is only restarted: its
	// DRIVER_CONFIG_DIGEST is the new template's (RollingOptions.Change).
	restart map[string]bool
}

// scopesOf groups the GPU nodes by their policy's scope.
func scopesOf(m *placement.Model, after After, opt RollingOptions) ([]*scope, error) {
	byName := map[string]*scope{}
	var out []*scope
	for _, n := range sortedGPUNodes(m) {
		f, _ := after.Facts.Get(n.Name)
		policy, name := opt.Policy(f.Image.Owner)
		sc := byName[name]
		if sc == nil {
			sc = &scope{Scope: Scope{Name: name, Policy: policy}, starts: map[string]start{}, anyOrder: map[string]bool{}, restart: map[string]bool{}}
			byName[name] = sc
			out = append(out, sc)
		}
		if removed, why := removedBy(opt.Change, n.Name); removed {
			// Its DaemonSet's pod goes at once; the upgrade controller
			// has no driver pod of it to roll.
			sc.unmanaged = append(sc.unmanaged, NodeOutcome{Node: n.Name, Scope: name, Outcome: Skipped, Note: "not rolled: it " + why})
			continue
		}
		// The operator deploys no driver here: no driver pod to roll, and
		// the library counts the node nowhere, whether its tag is known
		// or not.
		if !f.Image.Managed {
			sc.unmanaged = append(sc.unmanaged, NodeOutcome{Node: n.Name, Scope: name, Outcome: Skipped, Note: "not managed: " + f.Image.Reason})
			continue
		}
		sc.nodes = append(sc.nodes, n)
		st := startOf(m, n, opt.Driver)
		if policy.Manual { // the manual procedure knows no upgrade states
			st = manualStart(n, opt.Driver)
		}
		if opt.Change != nil {
			st = changeStart(n, st, sc, opt.Change)
		}
		sc.starts[n.Name] = st
		if n.Spec.Unschedulable || st.entry == resumes || st.entry == keepsFail {
			sc.anyOrder[n.Name] = true
		}
		if t, ok := m.DriverTaint(n.Name); ok && !policy.Manual {
			sc.untolerated = append(sc.untolerated, n.Name+" ("+t.ToString()+")")
		}
	}
	for _, sc := range out {
		sc.Managed = len(sc.nodes)
		limit, err := sc.Policy.Unavailable(sc.Managed)
		if err != nil {
			return nil, err
		}
		sc.MaxUnavailable = limit
	}
	return out, nil
}

// contested says whether nodes competed for the slots of a scope that
// halts: a node that needed a slot started, and others were left out. The
// operator takes the nodes in no set order, so any of them may have been
// the one that started (and failed), and the name order and its reverse
// do not show all of them.
func (sc *scope) contested(out []NodeOutcome) bool {
	started, left := false, false
	for _, o := range out {
		switch {
		case o.Outcome == NotStarted:
			left = true
		case o.Round > 0 && !sc.anyOrder[o.Node]:
			started = true
		}
	}
	return started && left
}

// roll runs one scope on sim, in name order or reversed, gangs asked at
// each round.
func (sc *scope) roll(sim *placement.Sim, gangs *gangWatch, after After, version string, reversed bool) []NodeOutcome {
	out := slices.Clone(sc.unmanaged)
	if !sc.Policy.AutoUpgrade {
		// ApplyState returns at once (upgrade_state.go:372-375).
		sc.Why = "autoUpgrade is off: the operator does not roll the driver. A driver pod restarts only when deleted (OnDelete), and its driver manager then evicts the node's GPU pods itself, with no drain and no timeout"
		for _, n := range sc.nodes {
			out = append(out, NodeOutcome{Node: n.Name, Scope: sc.Name, Outcome: NotRolled, State: n.Labels[nodefacts.UpgradeState],
				Note: "the operator will not roll it: autoUpgrade is off"})
		}
		return out
	}
	if len(sc.untolerated) > 0 {
		return append(out, sc.unbuilt()...)
	}
	run := &rollout{scope: sc, sim: sim, gangs: gangs, after: after, at: map[string]*NodeOutcome{}, landed: map[string]landing{}, uncordoned: map[string]bool{}}
	order := slices.Clone(sc.nodes)
	if reversed {
		slices.Reverse(order)
	}
	var required, resumed []*corev1.Node
	for _, n := range order {
		o := &NodeOutcome{Node: n.Name, Scope: sc.Name, Outcome: NotStarted, State: stateRequired}
		run.at[n.Name] = o
		st := sc.starts[n.Name]
		if st.state != "" && st.state != stateDone {
			o.From = n.Labels[nodefacts.UpgradeState]
		}
		switch {
		case st.entry == untracked:
			o.Outcome, o.State = Skipped, st.state
			o.Note = st.state + " is not a state the GPU Operator's upgrade moves: the node is left as it is"
		case st.entry == inSync && st.note != "":
			o.Outcome, o.State, o.Note = Skipped, stateDone, st.note
		case st.entry == inSync:
			o.Outcome, o.State, o.Note = Skipped, stateDone, "already runs "+version
		case st.entry == keepsFail:
			run.keepFailed(n, o)
		case st.entry == resumes:
			resumed = append(resumed, n)
			run.inProgress++
			if o.From == stateFailed {
				o.Note = "recovers from upgrade-failed: its driver pod already runs " + version + " and is Ready"
			}
		case n.Labels[nodefacts.UpgradeSkip] == "true":
			o.Outcome, o.Note = Skipped, "labelled "+nodefacts.UpgradeSkip+"=true: stays in upgrade-required"
			run.required++
		default:
			required = append(required, n)
			run.required++
		}
	}
	run.loop(resumed, required)
	run.waitedForUncordon()
	for _, n := range sc.nodes {
		out = append(out, *run.at[n.Name])
	}
	return out
}

// unbuilt is a scope the library cannot even read. A driver pod that runs
// under a NoSchedule taint it does not tolerate is one the DaemonSet
// controller no longer counts in desiredNumberScheduled, and BuildState
// then fails every reconcile ("driver DaemonSet should not have
// Unscheduled pods", upgrade_state.go:240-245): no node moves, not even
// to upgrade-required.
func (sc *scope) unbuilt() []NodeOutcome {
	sc.Halts = true
	sc.Why = fmt.Sprintf("the operator's upgrade stops before it starts: the driver pod on %s does not tolerate the node's taint, so the driver DaemonSet schedules fewer pods than run, and the upgrade library refuses to build its state (\"driver DaemonSet should not have Unscheduled pods\") until the taint is removed or tolerated (ClusterPolicy spec.daemonsets.tolerations)",
		oneline.Few(sc.untolerated, "; "))
	var out []NodeOutcome
	for _, n := range sc.nodes {
		out = append(out, NodeOutcome{Node: n.Name, Scope: sc.Name, Outcome: NotStarted, State: n.Labels[nodefacts.UpgradeState],
			Note: "the upgrade library stops at BuildState: the driver DaemonSet has a pod on a node whose taint it does not tolerate"})
	}
	return out
}

// rollout is one scope's simulation.
type rollout struct {
	*scope
	sim        *placement.Sim
	gangs      *gangWatch
	after      After
	at         map[string]*NodeOutcome
	required   int // nodes in upgrade-required
	inProgress int // started, not done
	// pending are the replacements that found no node when evicted, and
	// landed the nodes they found once one was uncordoned, by pod.
	pending []pendingPod
	landed  map[string]landing
	// uncordoned are nodes cordoned as read that their upgrade uncordoned.
	uncordoned map[string]bool
}

// landing is where a Pending replacement landed, and the uncordon that
// let it.
type landing struct{ uncordoned, to string }

// pendingPod is the i-th Pending replacement of a node's outcome o.
type pendingPod struct {
	o        *NodeOutcome
	i        int
	pod, why string
}

// waitedForUncordon rewords the Pending replacements that landed once a
// node was uncordoned: they wait only for that.
func (r *rollout) waitedForUncordon() {
	for _, p := range r.pending {
		if l, ok := r.landed[p.pod]; ok {
			p.o.Pending[p.i] = fmt.Sprintf("%s (replacement) waits Pending only until %s is uncordoned, then lands on %s; until then: %s", p.pod, l.uncordoned, l.to, p.why)
		}
	}
}

// keepFailed is a node already upgrade-failed whose driver pod is out of
// date: the library leaves it there, cordoned as it is, and counts it in
// progress (ProcessUpgradeFailedNodes, GetUpgradesInProgress). What a
// retry would meet in each phase is listed: most often what failed it.
func (r *rollout) keepFailed(n *corev1.Node, o *NodeOutcome) {
	o.Outcome, o.State = Failed, stateFailed
	retry := r.retryBlockers(n)
	fix := "find what failed it (a driver pod that restarted more than 10 times, a validation timeout), then label it " + nodefacts.UpgradeState + "=upgrade-required"
	if len(retry) > 0 {
		fix = "fix what a retry meets (below), then label it " + nodefacts.UpgradeState + "=upgrade-required"
	}
	o.Why = append([]Blocker{{
		What: "was already upgrade-failed, and its driver pod is not in sync and Ready: the operator leaves it there, holding an upgrade slot",
		Fix:  fix,
	}}, retry...)
	r.inProgress++
}

// retryBlockers are what each phase that removes pods would meet on n
// now: pods its filters refuse, and budgets that refuse for good.
func (r *rollout) retryBlockers(n *corev1.Node) []Blocker {
	var out []Blocker
	for _, ph := range drain.UpgradePhases(r.Policy) {
		screen, _ := ph.Screen(n.Name, r.sim.PodsOn(n.Name))
		bs := append(phaseBlockers(ph, screen), budgetStep(r.sim.Model(), n.Name, r.sim.RoomIn(n.Name, ph)).Blockers...)
		tagPhase(bs, ph.Name)
		out = append(out, bs...)
	}
	return out
}

// loop starts nodes as the window allows until none can start. The nodes
// resumed are already in the upgrade: they go on in the first round with
// those the window lets start.
func (r *rollout) loop(resumed, queue []*corev1.Node) {
	for round := 1; len(queue) > 0 || round == 1 && len(resumed) > 0; round++ {
		avail := r.window().Available()
		if round == 1 { // the library's count may be negative: no slot
			r.Slots, r.Unavailable, r.InProgress = max(avail, 0), r.window().Unavailable, r.inProgress
		}
		var start, rest []*corev1.Node
		if round == 1 {
			start = slices.Clone(resumed)
		}
		for _, n := range queue {
			// Nodes already cordoned go even without a slot.
			if avail > 0 || r.cordoned(n) {
				start = append(start, n)
				avail--
			} else {
				rest = append(rest, n)
			}
		}
		if len(start) == 0 {
			r.halt(rest)
			return
		}
		for _, n := range start {
			r.sim.Cordon(n.Name) // cordon-required and on are cordoned by the library
			r.gangs.cordon(n.Name)
			if r.starts[n.Name].entry != resumes {
				r.required--
				r.inProgress++
			}
		}
		r.gangs.round(r.Name, round) // the window at its fullest: none done yet
		r.runRound(round, start)
		queue = rest
	}
}

// halt ends the scope with nodes left that never start, each told why.
func (r *rollout) halt(left []*corev1.Node) {
	r.Halts = true
	why := r.noSlot()
	r.Why = fmt.Sprintf("%d node(s) never start: %s", len(left), why)
	for _, n := range left {
		r.at[n.Name].Note = why
	}
}

// runRound runs the nodes that start together: their pods' removal at
// once, then, as the nodes that passed are done and uncordoned (their
// evicted pods' replacements may land there), the retried evictions of
// the others.
func (r *rollout) runRound(round int, start []*corev1.Node) {
	var retry, through []*corev1.Node
	for _, n := range start {
		o := r.at[n.Name]
		o.Round = round
		if r.restart[n.Name] && r.starts[n.Name].entry == fresh {
			// nextStateForUpgradeRequiredNode: cordoned, then straight to
			// pod-restart-required (upgrade_inplace.go:134-152).
			o.note("restart-only: cordoned and its driver pod restarted, with no GPU pod deleted and no drain (its DRIVER_CONFIG_DIGEST is the new template's)")
			through = append(through, n)
			continue
		}
		switch r.removePods(n, o, false) {
		case passed:
			through = append(through, n)
		case blocked:
			retry = append(retry, n)
		}
	}
	// The library removes the pods of every node of the round in the same
	// reconciles; a node's driver reload and validation take minutes
	// more. So none is uncordoned before the others' pods are removed: a
	// replacement evicted from one does not land on another of its round.
	for _, n := range through {
		r.done(n, r.at[n.Name])
	}
	for _, n := range retry {
		o := r.at[n.Name]
		if r.removePods(n, o, true) == passed {
			r.done(n, o)
			if !r.Policy.Manual {
				o.note("its evictions pass once the nodes started with it are done, if that is within the timeout")
			}
		}
	}
}

// done reloads the node's driver and, when it is upgraded, uncordons it
// unless it was cordoned before (the operator keeps that cordon). The
// replacements that waited Pending for a node land as it is uncordoned.
func (r *rollout) done(n *corev1.Node, o *NodeOutcome) {
	r.finish(n, o)
	if o.Outcome != Upgraded {
		return
	}
	r.inProgress--
	if keepsCordon(n, r.starts[n.Name]) {
		o.note("cordoned before its upgrade: the operator leaves it cordoned")
		return
	}
	r.uncordoned[n.Name] = true
	r.gangs.uncordon(n.Name)
	for _, e := range r.sim.Uncordon(n.Name) {
		r.landed[e.Pod.Key()] = landing{uncordoned: n.Name, to: e.To}
	}
}

// window counts the scope now.
func (r *rollout) window() operator.Window {
	w := operator.Window{Total: len(r.nodes), Required: r.required, InProgress: r.inProgress,
		MaxParallel: r.Policy.MaxParallel, MaxUnavailable: r.MaxUnavailable}
	for _, n := range r.nodes {
		if r.cordoned(n) || !nodefacts.Ready(n) {
			w.Unavailable++
		}
	}
	return w
}

// cordoned says whether n is unschedulable now: cordoned as read and not
// uncordoned by its upgrade since, or cordoned by the upgrade.
func (r *rollout) cordoned(n *corev1.Node) bool {
	return n.Spec.Unschedulable && !r.uncordoned[n.Name] || r.sim.Cordoned(n.Name)
}

// noSlot says why no node can start: the slots maxParallelUpgrades
// allows are held, or maxUnavailable is used up, naming the nodes.
func (r *rollout) noSlot() string {
	w := r.window()
	var why []string
	if w.MaxParallel > 0 && w.InProgress >= w.MaxParallel {
		why = append(why, fmt.Sprintf("no free slot (%d of %d held by %s)", w.InProgress, w.MaxParallel, oneline.Few(r.holders(), "; ")))
	}
	if w.Unavailable >= w.MaxUnavailable {
		why = append(why, fmt.Sprintf("maxUnavailable %d (%s) is used up: %d of %d managed node(s) are unavailable (%s)",
			w.MaxUnavailable, orAll(r.Policy.MaxUnavailable), w.Unavailable, w.Total, oneline.Few(r.unavailable(), "; ")))
	}
	if len(why) == 0 { // the window allows none for a reason the two above do not cover
		why = append(why, fmt.Sprintf("the upgrade window allows none (maxParallelUpgrades %d, maxUnavailable %d)", w.MaxParallel, w.MaxUnavailable))
	}
	return strings.Join(why, "; and ")
}

// holders are the nodes that hold a slot for good, each with its outcome.
func (r *rollout) holders() []string {
	var out []string
	for _, n := range r.nodes {
		if o := r.at[n.Name]; o.Outcome == Failed || o.Outcome == Stuck {
			out = append(out, n.Name+", "+o.Outcome)
		}
	}
	return out
}

// unavailable are the nodes cordoned or NotReady now, each with which.
func (r *rollout) unavailable() []string {
	var out []string
	for _, n := range r.nodes {
		switch {
		case !nodefacts.Ready(n):
			out = append(out, n.Name+" NotReady")
		case r.cordoned(n):
			out = append(out, n.Name+" cordoned")
		}
	}
	return out
}

// few lists a few of the entries, and how many more.
func orAll(s string) string {
	if s == "" {
		return "unset: every node"
	}
	return s
}

func sortedGPUNodes(m *placement.Model) []*corev1.Node {
	var out []*corev1.Node
	for _, n := range m.Nodes {
		if nodefacts.GPUBy(n.Labels) != "" {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b *corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func nonNil(b []Blocker) []Blocker {
	if b == nil {
		return []Blocker{}
	}
	return b
}

func nonNilS(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

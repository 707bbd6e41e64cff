package plan

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/operator"
)

// Outcomes of a node in a rolling upgrade.
const (
	Upgraded   = "upgraded"    // reached upgrade-done
	Failed     = "failed"      // upgrade-failed: stays cordoned and keeps its slot
	Stuck      = "stuck"       // waits in State for good (a timeout of 0, a missing image)
	Skipped    = "skipped"     // already at the version, labelled to skip, or not managed
	NotStarted = "not-started" // never gets a slot: the rollout halts before it
)

// skipLabel keeps a node in upgrade-required.
const skipLabel = "nvidia.com/gpu-driver-upgrade.skip"

// NodeOutcome is what the rolling upgrade does with one GPU node.
type NodeOutcome struct {
	Node    string    `json:"node"`
	Scope   string    `json:"scope"`
	Round   int       `json:"round"` // the window it starts in; 0 when it never starts
	Outcome string    `json:"outcome"`
	State   string    `json:"state"` // the upgrade state it ends in
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

// Scope is the nodes one upgrade policy rolls: every managed node under a
// ClusterPolicy, each NVIDIADriver's own since v26.7.
type Scope struct {
	Name           string          `json:"name"`
	Policy         operator.Policy `json:"policy"`
	Managed        int             `json:"managed"`
	MaxUnavailable int             `json:"max_unavailable"`
	Unavailable    int             `json:"unavailable"` // cordoned or NotReady before the upgrade
	Slots          int             `json:"slots"`       // nodes that may start at once at the outset
	Halts          bool            `json:"halts"`
	Why            string          `json:"why,omitempty"` // why it halts, or why it does not roll
}

// Rolling is the simulated upgrade of the whole fleet.
type Rolling struct {
	Driver string        `json:"driver"`
	Scopes []Scope       `json:"scopes"`
	Nodes  []NodeOutcome `json:"nodes"`
	// Halts is true when some scope stops for good with nodes left.
	Halts bool `json:"halts"`
}

// RollingOptions shape the simulation: each scope's policy comes from the
// operator profile (internal/operator), or is the manual procedure.
type RollingOptions struct {
	Options
	// Policy returns the policy of the scope named, and the scope's name,
	// for a node's owner ("" without a profile).
	Policy func(owner string) (operator.Policy, string)
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
func Roll(m *drain.Model, after After, opt RollingOptions) (*Rolling, error) {
	if err := nodefacts.CheckVersion(opt.Driver); err != nil {
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
	for _, sc := range scopes {
		out := sc.roll(forward, after, opt.Driver, false)
		if !sc.Policy.Manual { // the manual procedure goes in the user's order
			other := (&scope{Scope: sc.Scope, nodes: sc.nodes, unmanaged: sc.unmanaged, cordonedBefore: sc.cordonedBefore}).roll(backward, after, opt.Driver, true)
			contested := sc.Halts && sc.contested(out)
			for i := range out {
				o := &out[i]
				if o.Outcome != other[i].Outcome || o.State != other[i].State || contested && o.Outcome != Skipped && !sc.precordoned(o.Node) {
					o.OrderDependent = true
				}
			}
		}
		r.Nodes = append(r.Nodes, out...)
		r.Scopes = append(r.Scopes, sc.Scope)
		r.Halts = r.Halts || sc.Halts
	}
	slices.SortStableFunc(r.Nodes, func(a, b NodeOutcome) int { return strings.Compare(a.Node, b.Node) })
	for i := range r.Nodes {
		o := &r.Nodes[i]
		o.Why, o.Evicted, o.Pending = nonNil(o.Why), nonNilS(o.Evicted), nonNilS(o.Pending)
	}
	return r, nil
}

// scope is a Scope with its nodes, in name order.
type scope struct {
	Scope
	nodes          []*corev1.Node
	unmanaged      []NodeOutcome
	cordonedBefore map[string]bool
}

// scopesOf groups the GPU nodes by their policy's scope.
func scopesOf(m *drain.Model, after After, opt RollingOptions) ([]*scope, error) {
	byName := map[string]*scope{}
	var out []*scope
	for _, n := range sortedGPUNodes(m) {
		f, _ := after.Facts.Get(n.Name)
		policy, name := opt.Policy(f.Image.Owner)
		sc := byName[name]
		if sc == nil {
			sc = &scope{Scope: Scope{Name: name, Policy: policy}, cordonedBefore: map[string]bool{}}
			byName[name] = sc
			out = append(out, sc)
		}
		if f.Image.Ref != "" && !f.Image.Managed {
			sc.unmanaged = append(sc.unmanaged, NodeOutcome{Node: n.Name, Scope: name, Outcome: Skipped, Note: "not managed: " + f.Image.Reason})
			continue
		}
		sc.nodes = append(sc.nodes, n)
		if n.Spec.Unschedulable {
			sc.cordonedBefore[n.Name] = true
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
		case o.Round > 0 && !sc.precordoned(o.Node):
			started = true
		}
	}
	return started && left
}

// precordoned says whether node was cordoned before the upgrade: such a
// node starts without a slot, whatever the order.
func (sc *scope) precordoned(node string) bool { return sc.cordonedBefore[node] }

// roll runs one scope on sim, in name order or reversed.
func (sc *scope) roll(sim *drain.Sim, after After, version string, reversed bool) []NodeOutcome {
	out := slices.Clone(sc.unmanaged)
	if !sc.Policy.AutoUpgrade {
		sc.Why = "autoUpgrade is off: the operator does not roll the driver. A driver pod restarts only when deleted (OnDelete), and its driver manager then evicts the node's GPU pods itself, with no drain and no timeout"
		for _, n := range sc.nodes {
			out = append(out, NodeOutcome{Node: n.Name, Scope: sc.Name, Outcome: Skipped, Note: "autoUpgrade is off"})
		}
		return out
	}
	run := &rollout{scope: sc, sim: sim, after: after, at: map[string]*NodeOutcome{}}
	order := slices.Clone(sc.nodes)
	if reversed {
		slices.Reverse(order)
	}
	var required []*corev1.Node
	for _, n := range order {
		o := &NodeOutcome{Node: n.Name, Scope: sc.Name, Outcome: NotStarted, State: "upgrade-required"}
		run.at[n.Name] = o
		switch {
		case nodefacts.Of(n).DriverVersion == version:
			o.Outcome, o.State, o.Note = Skipped, "upgrade-done", "already runs "+version
		case n.Labels[skipLabel] == "true":
			o.Outcome, o.Note = Skipped, "labelled "+skipLabel+"=true: stays in upgrade-required"
			run.required++
		default:
			required = append(required, n)
			run.required++
		}
	}
	run.loop(required)
	for _, n := range sc.nodes {
		out = append(out, *run.at[n.Name])
	}
	return out
}

// rollout is one scope's simulation.
type rollout struct {
	*scope
	sim        *drain.Sim
	after      After
	at         map[string]*NodeOutcome
	required   int // nodes in upgrade-required
	inProgress int // started, not done
}

// loop starts nodes as the window allows until none can start.
func (r *rollout) loop(queue []*corev1.Node) {
	for round := 1; len(queue) > 0; round++ {
		avail := r.window().Available()
		if round == 1 {
			r.Slots, r.Unavailable = avail, r.window().Unavailable
		}
		var start, rest []*corev1.Node
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
			r.Halts = true
			r.Why = r.haltReason(len(rest))
			return
		}
		for _, n := range start {
			r.sim.Cordon(n.Name)
			r.required--
			r.inProgress++
		}
		r.runRound(round, start)
		queue = rest
	}
}

// runRound runs the nodes that start together: their pods' removal at
// once, then, as the nodes that passed are done and uncordoned (their
// evicted pods' replacements may land there), the retried evictions of
// the others.
func (r *rollout) runRound(round int, start []*corev1.Node) {
	var retry []*corev1.Node
	for _, n := range start {
		o := r.at[n.Name]
		o.Round = round
		switch r.removePods(n, o, false) {
		case passed:
			r.done(n, o)
		case blocked:
			retry = append(retry, n)
		}
	}
	for _, n := range retry {
		o := r.at[n.Name]
		if r.removePods(n, o, true) == passed {
			r.done(n, o)
			if !r.Policy.Manual {
				o.Note = strings.TrimSpace(o.Note + " (its evictions pass once the nodes started with it are done, if that is within the timeout)")
			}
		}
	}
}

// done reloads the node's driver and, when it is upgraded, uncordons it
// unless it was cordoned before (the operator keeps that cordon).
func (r *rollout) done(n *corev1.Node, o *NodeOutcome) {
	r.finish(n, o)
	if o.Outcome != Upgraded {
		return
	}
	r.inProgress--
	if !n.Spec.Unschedulable {
		r.sim.Uncordon(n.Name)
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

// cordoned says whether n is unschedulable now: cordoned before the
// upgrade, or by it and not yet uncordoned.
func (r *rollout) cordoned(n *corev1.Node) bool {
	return n.Spec.Unschedulable || r.sim.Cordoned(n.Name)
}

func (r *rollout) haltReason(left int) string {
	w := r.window()
	held := 0
	for _, o := range r.at {
		if o.Outcome == Failed || o.Outcome == Stuck {
			held++
		}
	}
	switch {
	case w.Unavailable >= w.MaxUnavailable:
		return fmt.Sprintf("%d node(s) left never start: %d of %d managed node(s) are cordoned or NotReady, and maxUnavailable is %d (%s)",
			left, w.Unavailable, w.Total, w.MaxUnavailable, orAll(r.Policy.MaxUnavailable))
	default:
		return fmt.Sprintf("%d node(s) left never start: %d failed or stuck node(s) hold all %d slot(s) (maxParallelUpgrades %d)",
			left, held, r.Policy.MaxParallel, r.Policy.MaxParallel)
	}
}

func orAll(s string) string {
	if s == "" {
		return "unset: every node"
	}
	return s
}

func sortedGPUNodes(m *drain.Model) []*corev1.Node {
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

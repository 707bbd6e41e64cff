package plan

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
)

// Outcomes of a node in a rolling upgrade.
const (
	Upgraded   = "upgraded"
	Skipped    = "skipped"
	Stalls     = "stalls"
	NotReached = "not-reached"
)

// skipLabel exempts a node from the operator's driver upgrade.
const skipLabel = "nvidia.com/gpu-driver-upgrade.skip"

// NodeOutcome is what the rolling upgrade does with one GPU node.
type NodeOutcome struct {
	Node    string    `json:"node"`
	Batch   int       `json:"batch"` // 0 for skipped nodes
	Outcome string    `json:"outcome"`
	State   string    `json:"state,omitempty"` // the upgrade state it stalls in
	Why     []Blocker `json:"why"`
	Evicted []string  `json:"evicted"`
	// Pending are replacements that found no node after the drain.
	Pending []string `json:"pending"`
	Note    string   `json:"note,omitempty"`
}

// Rolling is the simulated upgrade of the whole fleet.
type Rolling struct {
	Driver      string        `json:"driver"`
	MaxParallel int           `json:"max_parallel_upgrades"`
	Nodes       []NodeOutcome `json:"nodes"`
	// FirstStall names the first node that would stall; "" when none does.
	FirstStall string `json:"first_stall"`
}

// RollingOptions shape the simulation.
type RollingOptions struct {
	Options
	// MaxParallel is driver.upgradePolicy.maxParallelUpgrades: nodes
	// upgraded at once; 0 means all.
	MaxParallel int
}

// Roll simulates the GPU Operator's upgrade of every GPU node to
// opt.Driver, in name order, MaxParallel at a time: a batch is cordoned,
// each of its nodes drained (evicted replicas land where the scheduler's
// filters, their anti-affinity and the cordoned nodes let them), its driver
// reloaded, and the batch uncordoned, which lets Pending replicas land. A
// node stalls when its drain cannot finish (a budget refuses for good, a
// pod needs a flag the upgrade does not use, two budgets on one pod) or
// when its new image is missing. The simulation stops at the first batch
// with a stall: the operator keeps that node's slot until it is fixed.
// Nodes already at the version, or labelled to skip, are skipped.
func Roll(m *drain.Model, after After, opt RollingOptions) (*Rolling, error) {
	if err := nodefacts.CheckVersion(opt.Driver); err != nil {
		return nil, err
	}
	if opt.MaxParallel < 0 {
		return nil, fmt.Errorf("--max-parallel-upgrades %d: want 0 (all at once) or more", opt.MaxParallel)
	}
	r := &Rolling{Driver: opt.Driver, MaxParallel: opt.MaxParallel}
	var queue []*corev1.Node
	for _, n := range sortedGPUNodes(m) {
		if why := skipReason(n, nodefacts.Of(n), opt.Driver); why != "" {
			r.Nodes = append(r.Nodes, NodeOutcome{Node: n.Name, Outcome: Skipped, Note: why})
			continue
		}
		queue = append(queue, n)
	}
	size := opt.MaxParallel
	if size == 0 {
		size = max(1, len(queue))
	}
	sim := m.NewSim(opt.Flags)
	for start, batch := 0, 1; start < len(queue); start, batch = start+size, batch+1 {
		nodes := queue[start:min(start+size, len(queue))]
		if r.FirstStall != "" {
			for _, n := range nodes {
				r.Nodes = append(r.Nodes, NodeOutcome{Node: n.Name, Batch: batch, Outcome: NotReached})
			}
			continue
		}
		for _, n := range nodes {
			sim.Cordon(n.Name)
		}
		for _, n := range nodes {
			o := upgradeNode(sim, after, n)
			o.Batch = batch
			if o.Outcome == Stalls && r.FirstStall == "" {
				r.FirstStall = n.Name
			}
			r.Nodes = append(r.Nodes, o)
		}
		if r.FirstStall == "" {
			for _, n := range nodes {
				sim.Uncordon(n.Name)
			}
		}
	}
	slices.SortStableFunc(r.Nodes, func(a, b NodeOutcome) int { return strings.Compare(a.Node, b.Node) })
	for i := range r.Nodes {
		o := &r.Nodes[i]
		o.Why, o.Evicted, o.Pending = nonNil(o.Why), nonNilS(o.Evicted), nonNilS(o.Pending)
	}
	return r, nil
}

// upgradeNode drains one node of a cordoned batch and checks its image.
func upgradeNode(sim *drain.Sim, after After, n *corev1.Node) NodeOutcome {
	o := NodeOutcome{Node: n.Name, Outcome: Upgraded}
	before := sim.Clone()
	res := sim.Drain(n.Name)
	for _, e := range res.Evicted {
		o.Evicted = append(o.Evicted, e.Pod.Key())
		if !e.Gone && e.To == "" {
			o.Pending = append(o.Pending, fmt.Sprintf("%s (%s)", e.Pod.Key(), e.Why))
		}
	}
	switch {
	case len(res.Refused) > 0:
		o.Outcome, o.State = Stalls, "upgrade-failed"
		o.Why = drainStep(n.Name, res, sim.Flags).Blockers
	case !res.Done():
		o.Outcome, o.State = Stalls, "drain-required"
		room := before.Room(n.Name)
		o.Why = budgetStep(sim.Model(), n.Name, room).Blockers
		if len(room.Overlaps) > 0 {
			o.State = "upgrade-failed" // a 500 is not retried
		}
	}
	if o.Outcome == Stalls {
		return o
	}
	img := imageStep(n.Name, after)
	if len(img.Blockers) > 0 {
		o.Outcome, o.State = Stalls, "pod-restart-required"
		o.Why = img.Blockers
	}
	return o
}

func sortedGPUNodes(m *drain.Model) []*corev1.Node {
	var out []*corev1.Node
	for _, n := range m.Nodes {
		if n.Labels[nodefacts.GPUPresent] == "true" {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b *corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func skipReason(n *corev1.Node, now nodefacts.Facts, version string) string {
	switch {
	case n.Labels[skipLabel] == "true":
		return "labelled " + skipLabel + "=true"
	case now.DriverVersion == version:
		return "already runs " + version
	}
	return ""
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

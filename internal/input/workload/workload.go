package workload

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/cuda"
	"github.com/drvcheck/drvcheck/internal/gpures"
	"github.com/drvcheck/drvcheck/internal/input/docval"
	"github.com/drvcheck/drvcheck/internal/input/workload/gpufit"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// Sections are input.workloads and input.claims, for inv, whose nodes'
// facts are facts, with pol turning images into driver floors. They share
// one reading of DRA: each claim's devices are derived and its selectors
// evaluated once, for claims[] and for the workloads' claims_fit. gangs
// are the gangs that fit the fleet, for plan --all to ask again with a
// rollout's nodes out. win is the driver rollout's window (nil without an
// operator profile that rolls): gangs and replicated workloads are judged
// with it out (gang.rollout, rollout_room).
func Sections(inv *inventory.Inventory, facts *nodefacts.Set, pol cuda.Policy, cfg *gpures.Configs, win *gpufit.Window) (workloads, claims []any, gangs []*gpufit.Room) {
	d := newDRAFleet(inv, facts)
	workloads, gangs = workloadEntries(inv, facts, pol, d, cfg, win)
	return workloads, claimEntries(d), gangs
}

// workloadEntries returns input.workloads: for every workload (bare Pods and
// pod templates alike) where the scheduler may put its pods and what can go
// wrong there. Nodes are matched by class (sched), never one by one, and
// every join that many workloads share is cached: placements by constraint
// content, CUDA floors by image, label lookups by key.
func workloadEntries(inv *inventory.Inventory, facts *nodefacts.Set, pol cuda.Policy, d *draFleet, cfg *gpures.Configs, win *gpufit.Window) ([]any, []*gpufit.Room) {
	ws := inv.Workloads()
	c := newWorkloadFacts(inv, facts, ws, pol, d, cfg, win)
	c.gangs = c.gpu.Gangs(ws)
	if !inv.Live {
		c.rolloutRoom = c.gpu.Replicated(ws, c.owned)
	}
	out := make([]any, 0, len(ws))
	for _, w := range ws {
		out = append(out, c.entry(w))
	}
	return out, c.gpu.Rooms()
}

// workloadFacts holds what the entries of one run share.
type workloadFacts struct {
	fleet    *sched.Fleet
	nodes    []*corev1.Node
	facts    *nodefacts.Set
	policy   cuda.Policy
	owners   map[object.Ref]bool          // every workload, to tell owned ones
	nsLabels map[string]map[string]string // namespace labels, for namespaceSelector

	labelKeys   map[string]bool   // every label key some node carries
	sortedKeys  []string          // the same, sorted, for suggestions
	suggestions map[string]string // unknown key -> suggestion
	nonIntegers map[string]nonInteger
	imageFloors map[string]imageFloor
	classFacts  map[*sched.Class]classFacts
	olderNodes  map[olderKey]olderNodes
	messages    map[*sched.Placement]map[string]any
	same        map[any]map[string]any // facts of equal value, built once (see once)
	gpu         *gpufit.Judge          // gpu_fit and gang
	gangs       map[*inventory.Workload]map[string]any
	rolloutRoom map[*inventory.Workload]map[string]any // rollout_room, from files
	dra         *draFleet                              // the claims pods name and the devices they meet
}

// fleetKeys are the labels every class is split on, besides those the
// workloads read: the GPU facts DRV012 reads from a class representative.
func fleetKeys() sched.Keys {
	k := sched.Keys{Labels: map[string]bool{}}
	for _, key := range nodefacts.GPULabels() {
		k.Labels[key] = true
	}
	for _, key := range nodefacts.DriverKeys() {
		k.Labels[key] = true
	}
	return k
}

func newWorkloadFacts(inv *inventory.Inventory, facts *nodefacts.Set, ws []*inventory.Workload, pol cuda.Policy, d *draFleet, cfg *gpures.Configs, win *gpufit.Window) *workloadFacts {
	fleet := sched.NewFleet(inv.Nodes, fleetKeys())
	c := &workloadFacts{
		fleet:       fleet,
		nodes:       inv.Nodes,
		facts:       facts,
		policy:      pol,
		owners:      make(map[object.Ref]bool, len(ws)),
		nsLabels:    map[string]map[string]string{},
		labelKeys:   map[string]bool{},
		suggestions: map[string]string{},
		nonIntegers: map[string]nonInteger{},
		imageFloors: map[string]imageFloor{},
		classFacts:  map[*sched.Class]classFacts{},
		olderNodes:  map[olderKey]olderNodes{},
		messages:    map[*sched.Placement]map[string]any{},
		same:        map[any]map[string]any{},
		gpu:         gpufit.New(fleet, inv.Pods, cfg, inv.ExtendedOffers(), win),
		dra:         d,
	}
	for _, w := range ws {
		c.owners[w.Ref] = true
	}
	for _, ns := range inv.Namespaces {
		c.nsLabels[ns.Name] = ns.Labels
	}
	for _, n := range inv.Nodes {
		for k := range n.Labels {
			c.labelKeys[k] = true
		}
	}
	for k := range c.labelKeys {
		c.sortedKeys = append(c.sortedKeys, k)
	}
	slices.Sort(c.sortedKeys)
	return c
}

func (c *workloadFacts) entry(w *inventory.Workload) map[string]any {
	spec := &w.Template.Spec
	p := c.fleet.Place(spec)
	reqs := sched.Requirements(spec)
	e := map[string]any{
		"object":        docval.Ref(w.Ref.Kind, w.Ref.Namespace, w.Ref.Name),
		"replicas":      int(w.Replicas),
		"daemonset":     w.DaemonSet,
		"owned":         c.owned(w),
		"images":        images(spec),
		"placement":     c.placement(w, p),
		"gt_lt":         c.gtLt(w, reqs),
		"cuda":          c.cudaFloor(w, p),
		"anti_affinity": c.antiAffinity(w, p),
		"unknown_keys":  c.unknownKeys(w, reqs),
		"gpu":           c.gpuUse(w, p),
		"template":      w.TemplateName,
		"custom":        w.Custom,
		"generic":       w.Generic,
	}
	if fit := c.gpu.Fit(w, p); fit != nil {
		e["gpu_fit"] = fit
	}
	if g := c.gangs[w]; g != nil {
		e["gang"] = g
	}
	if r := c.rolloutRoom[w]; r != nil {
		e["rollout_room"] = r
	}
	if len(spec.ResourceClaims) > 0 {
		if cf := c.claimsFit(w, p); cf != nil {
			e["claims_fit"] = cf
		}
	}
	return e
}

// once is the map build makes for key, built once per run: most of the
// fleet's workloads share their placement, CUDA, anti-affinity and GPU
// facts with others of the same constraints and images, and one map for
// all of them is a map the document holds and OPA converts once, instead
// of one per workload (four per workload were most of what the workloads
// section allocated). key is comparable and names its kind of fact.
func (c *workloadFacts) once(key any, build func() map[string]any) map[string]any {
	if m, ok := c.same[key]; ok {
		return m
	}
	m := build()
	c.same[key] = m
	return m
}

// owned tells whether another workload of the input controls w (a
// ReplicaSet of a Deployment, a Pod of a ReplicaSet): findings then go to
// the owner only.
func (c *workloadFacts) owned(w *inventory.Workload) bool {
	o := w.Owner
	return o != nil && c.owners[object.Ref{Kind: o.Kind, Namespace: w.Ref.Namespace, Name: o.Name}]
}

// images lists the images of the init containers, then the containers.
func images(s *corev1.PodSpec) []any {
	out := make([]any, 0, len(s.InitContainers)+len(s.Containers))
	for _, ctr := range s.InitContainers {
		out = append(out, ctr.Image)
	}
	for _, ctr := range s.Containers {
		out = append(out, ctr.Image)
	}
	return out
}

// specField returns the path of rest inside w's pod spec, from the root of
// its manifest.
func specField(w *inventory.Workload, rest ...any) []any {
	out := make([]any, 0, len(w.SpecPath)+len(rest))
	out = append(out, w.SpecPath...)
	return append(out, rest...)
}

// templateField returns the path of rest inside w's pod template metadata
// (the Pod's own metadata for a bare Pod).
func templateField(w *inventory.Workload, rest ...any) []any {
	parent := w.SpecPath[:len(w.SpecPath)-1]
	out := make([]any, 0, len(parent)+1+len(rest))
	out = append(out, parent...)
	out = append(out, "metadata")
	return append(out, rest...)
}

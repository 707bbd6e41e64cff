package placement

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/gpures"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/internal/placement/layered"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// Model is the drain model of one inventory with its pods on the nodes,
// and what every simulation on it shares: the fleet as the scheduler's
// filters see it, the pods' groups, what the pods take of each node, and
// the indices of the searches.
type Model struct {
	*drain.Model
	// Unplaced are the modelled pods on no node (files only); WhyUnplaced
	// words why.
	Unplaced    map[*drain.Pod]bool
	unplacedWhy map[*drain.Pod]string // worded as they failed (WhyUnplaced)

	fleet      *sched.Fleet
	keys       sched.Keys
	groups     []*group
	termGroups []*group // groups with anti-affinity terms
	topoKeys   []string
	namespaces map[string]labels.Set
	counts     layered.Map[countKey, int] // pods per anti-affinity domain, as read or placed

	used          use // requests per node, as read or placed
	eligibleCache map[*sched.Placement][]*corev1.Node
	placements    map[placementKey]*sched.Placement
	// For searches that skip nodes without room (roomy.go).
	roomy   map[fitKey]*roomy
	reasons reasons
	whole   bool // New has returned: the pods are placed, m.used holds them
	order   map[string]int
	global  map[*sched.Placement][]int32 // eligible position -> model order
	// resIDs numbers the GPU resources the pods ask for (resources).
	resIDs map[corev1.ResourceName]int32
	// extended is, by node, what DRA gives as extended resources where
	// the node's allocatable has none (inventory.Inventory.ExtendedOffers).
	extended map[string]map[corev1.ResourceName]int64
	stamps   uint64 // the last stamp of a node's change in any Sim (unfit)
	// Search keys, numbered (searchKeyOf).
	keyIDs  map[noRoomKey]int32
	keyList []noRoomKey
	// Kinds of request, numbered from 1 (fitID; 0 is unkeyed).
	fitIDs map[fitKey]int32
	fits   []fitInfo
}

// group is pods that look the same to the scheduler: the replicas of one
// workload (files), or one pod (cluster). Each pod of the model carries
// its group (drain.Pod.Group).
type group struct {
	ns     string
	labels map[string]string
	terms  []sched.AntiTerm
	// spread are its pods' topology spread constraints (spread.go).
	spread []spreadTerm
	// rules is what keeps its pods off nodes (buildRules).
	rules []rule
	// counted: some rule reads where its pods are, so the model and each
	// Sim count them per topology domain; most groups no rule reads.
	counted bool
	// nodeScoped: each of its rules' domains is one node (scopeRules).
	nodeScoped bool

	gpu   []gpures.Request // its pods' GPU requests (gpures.Requests)
	res   []int32          // gpu's resources, by number (Model.resources)
	holds bool             // its pods take one of their node's pods (holdsNode)
	// toleratesCordon: its pods may land on a cordoned node (asked per search).
	toleratesCordon bool
	// keyID numbers its pods' search key in the fleet keyed (searchKeyOf).
	keyed *sched.Fleet
	keyID int32
	// fitID numbers its pods' kind of request in placement fitPl (fitID).
	fitPl *sched.Placement
	fitID int32
}

// groupOf is p's group; nil for a pod the model did not make.
func groupOf(p *drain.Pod) *group {
	g, _ := p.Group.(*group)
	return g
}

// New builds the drain model of inv (drain.New) with its pods placed: a
// cluster's where they run, the files' pods of docs/input.md on the nodes
// the scheduler would pick (place). A malformed selector is an error
// naming the object and where it was read.
func New(inv *inventory.Inventory) (*Model, error) {
	m := &Model{Unplaced: map[*drain.Pod]bool{}, unplacedWhy: map[*drain.Pod]string{}, namespaces: map[string]labels.Set{},
		extended: inv.ExtendedOffers()}
	for _, ns := range inv.Namespaces {
		l := labels.Set{corev1.LabelMetadataName: ns.Name}
		for k, v := range ns.Labels {
			l[k] = v
		}
		m.namespaces[ns.Name] = l
	}
	d, err := drain.New(inv, m.build)
	if err != nil {
		return nil, err
	}
	m.Model = d
	m.whole = true
	return m, nil
}

// build is New's drain.Placer: it groups the pods read and builds the
// fleet, then counts a cluster's pods where they run or places the files'.
func (m *Model) build(d *drain.Model, where func(object.Ref) string) error {
	m.Model = d
	m.order = nodeOrder(m.Nodes)
	if err := m.groupPods(where); err != nil {
		return err
	}
	m.prepare()
	if m.Live {
		m.count()
		return nil
	}
	if err := m.place(where); err != nil {
		return err
	}
	return m.gpuDaemonPods(where)
}

// groupPods gives every pod read its group: one per pod of a cluster, one per
// workload of the files (its replicas are copies of one run).
func (m *Model) groupPods(where func(object.Ref) string) error {
	for _, p := range m.Pods {
		g, err := m.newGroup(p.Namespace, p.Labels, p.Spec)
		if err != nil {
			ref := p.Workload
			if m.Live {
				ref = object.Ref{Kind: "Pod", Namespace: p.Namespace, Name: p.Name}
			}
			return fmt.Errorf("%s: %w", where(ref), err)
		}
		g.holds = holdsNode(p.Phase)
		p.Group = g
	}
	return nil
}

// newGroup registers a group of pods sharing labels and spec.
func (m *Model) newGroup(ns string, podLabels map[string]string, spec *corev1.PodSpec) (*group, error) {
	terms, err := sched.AntiTerms(spec, podLabels)
	if err != nil {
		return nil, err
	}
	spread, err := sched.SpreadTerms(spec, podLabels)
	if err != nil {
		return nil, err
	}
	g := &group{ns: ns, labels: podLabels, terms: terms, spread: spreadTerms(spread)}
	g.gpu, g.toleratesCordon = gpures.Requests(spec), sched.ToleratesCordon(spec)
	g.res = m.resources(g.gpu)
	m.groups = append(m.groups, g)
	return g, nil
}

// resources numbers the resources of reqs, in their order.
func (m *Model) resources(reqs []gpures.Request) []int32 {
	out := make([]int32, len(reqs))
	for i, r := range reqs {
		id, ok := m.resIDs[r.Name]
		if !ok {
			if m.resIDs == nil {
				m.resIDs = map[corev1.ResourceName]int32{}
			}
			id = int32(len(m.resIDs))
			m.resIDs[r.Name] = id
		}
		out[i] = id
	}
	return out
}

// prepare builds the fleet on the label keys the pods' specs read and notes
// the topology keys of anti-affinity terms and spread constraints.
func (m *Model) prepare() {
	seen := map[*corev1.PodSpec]bool{}
	var specs []*corev1.PodSpec
	for _, p := range m.Pods {
		if !seen[p.Spec] {
			seen[p.Spec] = true
			specs = append(specs, p.Spec)
		}
	}
	for _, w := range m.GPUDaemonSets {
		specs = append(specs, &w.Template.Spec)
	}
	m.keys = sched.KeysOf(specs)
	m.fleet = sched.NewFleet(m.Nodes, m.keys)
	keys := map[string]bool{}
	for _, g := range m.groups {
		if len(g.terms) > 0 {
			m.termGroups = append(m.termGroups, g)
		}
		for _, t := range g.terms {
			keys[t.Key] = true
		}
		for _, t := range g.spread {
			keys[t.Key] = true
		}
	}
	for k := range keys {
		m.topoKeys = append(m.topoKeys, k)
	}
	slices.Sort(m.topoKeys)
	m.buildRules()
	m.buildSpread()
}

// count counts a cluster's pods where they run, per anti-affinity domain
// and in what they take of their node.
func (m *Model) count() {
	for _, p := range m.Pods {
		if p.Node != "" {
			m.addCounts(&m.counts, p, p.Node, 1)
			m.addOn(&m.used, p.Node, p, 1)
		}
	}
}

// gpuDaemonPods adds, from files, the pods of the DaemonSets whose
// containers request GPUs, one on each node their template may run on
// (drain.DaemonSetPods). Other DaemonSets' pods matter to no phase and are
// not modelled. They count against maxModelPods too: many DaemonSets on
// many nodes are as many pods.
func (m *Model) gpuDaemonPods(where func(object.Ref) string) error {
	for _, w := range m.GPUDaemonSets {
		spec := &w.Template.Spec
		nodes := m.eligible(m.placement(m.fleet, spec))
		if len(m.Pods)+len(nodes) > maxModelPods {
			return tooManyPods(where(w.Ref), fmt.Sprintf("a pod on each of %d nodes", len(nodes)))
		}
		// Their group is in no rule: anti-affinity and spread never
		// count them, as they never move.
		g := &group{gpu: gpures.Requests(spec), holds: true, toleratesCordon: sched.ToleratesCordon(spec)}
		g.res = m.resources(g.gpu)
		for _, p := range drain.DaemonSetPods(w, nodes) {
			p.Group = g
			m.Pods = append(m.Pods, p)
			m.addOn(&m.used, p.Node, p, 1)
		}
	}
	return nil
}

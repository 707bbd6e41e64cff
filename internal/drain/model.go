package drain

import (
	"cmp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/drvcheck/drvcheck/internal/gpures"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// Model is every pod and budget of one inventory, with the pods on nodes.
type Model struct {
	Live    bool
	Nodes   []*corev1.Node
	Pods    []*Pod // in model order: files by kind, namespace, name; a cluster's by namespace, name
	Budgets []*Budget
	// Unplaced are the modelled pods on no node (files only); WhyUnplaced
	// words why.
	Unplaced    map[*Pod]bool
	unplacedWhy map[*Pod]string // worded as they failed (WhyUnplaced)

	node       map[string]*corev1.Node
	fleet      *sched.Fleet
	keys       sched.Keys
	groups     []*group
	termGroups []*group // groups with anti-affinity terms
	topoKeys   []string
	namespaces map[string]labels.Set
	onNode     map[string][]*Pod
	counts     layered[countKey, int] // pods per anti-affinity domain, as read or placed

	used          use                   // requests per node, as read or placed
	gpuDaemons    []*inventory.Workload // files: DaemonSets whose pods use GPUs
	eligibleCache map[*sched.Placement][]*corev1.Node
	placements    map[placementKey]*sched.Placement
	// For searches that skip nodes without room (roomy.go).
	roomy    map[fitKey]*roomy
	reasons  reasons
	whole    bool // New has returned: the pods are placed, m.used holds them
	placed   bool // place counted the files' pods (index need not)
	order    map[string]int
	global   map[*sched.Placement][]int32 // eligible position -> model order
	gpuNames []corev1.ResourceName        // every GPU resource a pod asks for
	stamps   uint64                       // the last stamp of a node's change in any Sim (unfit)
	// Search keys, numbered (searchKeyOf).
	keyIDs  map[noRoomKey]int32
	keyList []noRoomKey
}

// New builds the model of inv: from a cluster (inv.Live) its pods and
// budget status, from files the pod model of docs/input.md placed on the nodes.
// A malformed selector is an error naming the object and where it was read.
func New(inv *inventory.Inventory) (*Model, error) {
	m := &Model{
		Live: inv.Live, Nodes: inv.Nodes, Unplaced: map[*Pod]bool{}, unplacedWhy: map[*Pod]string{},
		node: map[string]*corev1.Node{}, namespaces: map[string]labels.Set{},
	}
	for _, n := range inv.Nodes {
		m.node[n.Name] = n
	}
	m.order = nodeOrder(m.Nodes)
	for _, ns := range inv.Namespaces {
		l := labels.Set{corev1.LabelMetadataName: ns.Name}
		for k, v := range ns.Labels {
			l[k] = v
		}
		m.namespaces[ns.Name] = l
	}
	where := func(ref object.Ref) string { return whereIs(inv, ref) }
	var err error
	if inv.Live {
		err = m.clusterPods(inv, where)
	} else {
		err = m.filePods(inv, where)
	}
	if err != nil {
		return nil, err
	}
	m.prepare()
	if !inv.Live {
		if err := m.place(where); err != nil {
			return nil, err
		}
		if err := m.gpuDaemonPods(where); err != nil {
			return nil, err
		}
	}
	m.index()
	if err := m.joinBudgets(inv, where); err != nil {
		return nil, err
	}
	m.gpuNames, m.whole = m.used.names(), true
	return m, nil
}

// Node returns the node named name, or nil.
func (m *Model) Node(name string) *corev1.Node { return m.node[name] }

// PodsOn lists the pods on node as read (or as modelled), by namespace and name.
func (m *Model) PodsOn(node string) []*Pod { return m.onNode[node] }

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
	for _, w := range m.gpuDaemons {
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
			keys[t.key] = true
		}
	}
	for k := range keys {
		m.topoKeys = append(m.topoKeys, k)
	}
	slices.Sort(m.topoKeys)
	m.buildRules()
	m.buildSpread()
}

// index lists the pods per node and, unless place did, counts them per
// anti-affinity domain.
func (m *Model) index() {
	m.onNode = map[string][]*Pod{}
	count := !m.placed
	if count {
		m.counts, m.used = layered[countKey, int]{}, use{}
	}
	for _, p := range m.Pods {
		if p.Node == "" {
			continue
		}
		m.onNode[p.Node] = append(m.onNode[p.Node], p)
		if count {
			m.addCounts(&m.counts, p, p.Node, 1)
			m.used.add(p.Node, p, 1)
		}
	}
	for _, ps := range m.onNode {
		sortPods(ps)
	}
}

func sortPods(ps []*Pod) {
	slices.SortFunc(ps, func(a, b *Pod) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
}

// joinBudgets parses every budget's selector, finds its pods and templates,
// and counts its status.
func (m *Model) joinBudgets(inv *inventory.Inventory, where func(object.Ref) string) error {
	pods := newLabelIndex[*Pod]()
	for _, p := range m.Pods {
		pods.add(p.Namespace, p.Labels, p)
	}
	templates := newLabelIndex[*inventory.Workload]()
	for _, w := range inv.Workloads() {
		templates.add(w.Ref.Namespace, w.Template.Labels, w)
	}
	for _, pdb := range inv.PDBs {
		b, err := newBudget(pdb, where)
		if err != nil {
			return err
		}
		for _, p := range pods.candidates(b.Selector, pdb.Namespace) {
			if b.Selector.Matches(labels.Set(p.Labels)) {
				b.Pods = append(b.Pods, p)
				p.Budgets = append(p.Budgets, b)
			}
		}
		for _, w := range templates.candidates(b.Selector, pdb.Namespace) {
			if b.Selector.Matches(labels.Set(w.Template.Labels)) {
				b.Templates = append(b.Templates, w.Ref)
			}
		}
		b.count(m.Live)
		m.Budgets = append(m.Budgets, b)
	}
	slices.SortFunc(m.Budgets, func(a, b *Budget) int {
		return cmp.Or(strings.Compare(a.Ref.Namespace, b.Ref.Namespace), strings.Compare(a.Ref.Name, b.Ref.Name))
	})
	return nil
}

// newGroup registers a group of pods sharing labels and spec.
func (m *Model) newGroup(ns string, podLabels map[string]string, spec *corev1.PodSpec) (*group, error) {
	terms, err := sched.AntiTerms(spec, podLabels)
	if err != nil {
		return nil, err
	}
	spread, err := parseSpread(spec, podLabels)
	if err != nil {
		return nil, err
	}
	g := &group{ns: ns, labels: podLabels, terms: terms, spread: spread}
	m.groups = append(m.groups, g)
	return g, nil
}

func (m *Model) addPod(p *Pod) {
	if p.Count == 0 {
		p.Count = 1
	}
	p.gpu, p.holds = gpures.Requests(p.Spec), holdsNode(p.Phase)
	p.toleratesCordon = sched.ToleratesCordon(p.Spec)
	m.Pods = append(m.Pods, p)
}

// whereIs names an object and, from files, where it was read.
func whereIs(inv *inventory.Inventory, ref object.Ref) string {
	if o := inv.Origin(ref); o != nil {
		return o.Where()
	}
	return ref.String()
}

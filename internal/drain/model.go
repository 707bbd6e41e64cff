package drain

import (
	"cmp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/object"
)

// Model is every pod and budget of one inventory, with the pods on nodes.
type Model struct {
	Live    bool
	Nodes   []*corev1.Node
	Pods    []*Pod // in model order: files by kind, namespace, name; a cluster's by namespace, name
	Budgets []*Budget
	// GPUDaemonSets are, from files, the DaemonSets whose pods use GPUs:
	// the placer adds their pods (DaemonSetPods) on the nodes they may run on.
	GPUDaemonSets []*inventory.Workload

	node   map[string]*corev1.Node
	onNode map[string][]*Pod
}

// Placer lands the pods New read on the nodes (internal/placement.New
// gives one), before New lists them per node and joins the budgets. A
// cluster's pods are on their nodes already; the files' are runs of
// replicas on no node, which it may replace with the replicas placed.
// where names an object and where it was read, for an error.
type Placer func(m *Model, where func(object.Ref) string) error

// New builds the model of inv: from a cluster (inv.Live) its pods and
// budget status, from files the pod model of docs/input.md, placed on the
// nodes by place (nil leaves the files' pods on no node). A malformed
// selector is an error naming the object and where it was read.
func New(inv *inventory.Inventory, place Placer) (*Model, error) {
	m := &Model{Live: inv.Live, Nodes: inv.Nodes, node: map[string]*corev1.Node{}}
	for _, n := range inv.Nodes {
		m.node[n.Name] = n
	}
	where := func(ref object.Ref) string { return whereIs(inv, ref) }
	if inv.Live {
		m.clusterPods(inv)
	} else {
		m.filePods(inv)
	}
	if place != nil {
		if err := place(m, where); err != nil {
			return nil, err
		}
	}
	m.index()
	if err := m.joinBudgets(inv, where); err != nil {
		return nil, err
	}
	return m, nil
}

// Node returns the node named name, or nil.
func (m *Model) Node(name string) *corev1.Node { return m.node[name] }

// PodsOn lists the pods on node as read (or as modelled), by namespace and name.
func (m *Model) PodsOn(node string) []*Pod { return m.onNode[node] }

// index lists the pods per node.
func (m *Model) index() {
	m.onNode = map[string][]*Pod{}
	for _, p := range m.Pods {
		if p.Node != "" {
			m.onNode[p.Node] = append(m.onNode[p.Node], p)
		}
	}
	for _, ps := range m.onNode {
		SortPods(ps)
	}
}

// SortPods sorts ps by namespace and name, the order PodsOn lists.
func SortPods(ps []*Pod) {
	slices.SortFunc(ps, func(a, b *Pod) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
}

// joinBudgets parses every budget's selector, finds its pods and templates,
// and counts its status.
func (m *Model) joinBudgets(inv *inventory.Inventory, where func(object.Ref) string) error {
	pods := NewLabelIndex[*Pod]()
	for _, p := range m.Pods {
		pods.Add(p.Namespace, p.Labels, p)
	}
	templates := NewLabelIndex[*inventory.Workload]()
	for _, w := range inv.Workloads() {
		templates.Add(w.Ref.Namespace, w.Template.Labels, w)
	}
	for _, pdb := range inv.PDBs {
		b, err := newBudget(pdb, where)
		if err != nil {
			return err
		}
		for _, p := range pods.Candidates(b.Selector, pdb.Namespace) {
			if b.Selector.Matches(labels.Set(p.Labels)) {
				b.Pods = append(b.Pods, p)
				p.Budgets = append(p.Budgets, b)
			}
		}
		for _, w := range templates.Candidates(b.Selector, pdb.Namespace) {
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

func (m *Model) addPod(p *Pod) {
	if p.Count == 0 {
		p.Count = 1
	}
	m.Pods = append(m.Pods, p)
}

// whereIs names an object and, from files, where it was read.
func whereIs(inv *inventory.Inventory, ref object.Ref) string {
	if o := inv.Origin(ref); o != nil {
		return o.Where()
	}
	return ref.String()
}

package sched

import (
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Class is a group of nodes the filters cannot tell apart.
type Class struct {
	Rep   *corev1.Node   // a representative; labels outside the keys may differ
	Nodes []*corev1.Node // every node of the class, in input order
}

// Fleet is a set of nodes grouped into classes.
type Fleet struct {
	Classes []*Class
	total   int
	keys    Keys
	cache   map[string]*Placement
	evals   int // filter evaluations, one per class and distinct spec

	// For splitting classes further per spec (split.go).
	all     []*corev1.Node
	classOf []int                   // index in Classes of each node of all
	columns map[string][]labelValue // each node's value of a label key, by key
	splits  map[string][]*Class     // by view
}

// Keys are the node label keys workloads refer to; only their values can
// change a filter's verdict. ByName is set when some workload selects nodes
// by metadata.name (matchFields), which then splits every node apart.
type Keys struct {
	Labels map[string]bool
	ByName bool
}

// NewFleet groups nodes into classes by the values of keys, their
// NoSchedule/NoExecute taints and spec.unschedulable.
func NewFleet(nodes []*corev1.Node, keys Keys) *Fleet {
	classes, classOf := groupBy(nodes, func(b []byte, i int) []byte { return append(b, keys.classKey(nodes[i])...) })
	return &Fleet{
		Classes: classes,
		total:   len(nodes),
		keys:    keys,
		cache:   map[string]*Placement{},
		all:     nodes,
		classOf: classOf,
		columns: map[string][]labelValue{},
		splits:  map[string][]*Class{},
	}
}

// groupBy puts nodes into classes by the key appendKey writes for the i-th
// node, keeping the order of first sight, and returns each node's class
// index. The key buffer is reused: looking a []byte up as a string does not
// allocate, so only a new class costs an allocation.
func groupBy(nodes []*corev1.Node, appendKey func(b []byte, i int) []byte) ([]*Class, []int) {
	var out []*Class
	index := map[string]int{}
	classOf := make([]int, len(nodes))
	var buf []byte
	for i, n := range nodes {
		buf = appendKey(buf[:0], i)
		c, ok := index[string(buf)]
		if !ok {
			c = len(out)
			index[string(buf)] = c
			out = append(out, &Class{Rep: n})
		}
		out[c].Nodes = append(out[c].Nodes, n)
		classOf[i] = c
	}
	return out, classOf
}

func (k Keys) classKey(n *corev1.Node) string {
	var b strings.Builder
	if k.ByName {
		b.WriteString("name=" + n.Name + "\x00")
	}
	labels := make([]string, 0, len(k.Labels))
	for key := range k.Labels {
		if v, ok := n.Labels[key]; ok {
			labels = append(labels, key+"="+v)
		}
	}
	sort.Strings(labels)
	for _, l := range labels {
		b.WriteString(l + "\x00")
	}
	b.WriteString("\x01")
	for _, t := range scheduleTaints(n) {
		b.WriteString(t.Key + "=" + t.Value + ":" + string(t.Effect) + "\x00")
	}
	if n.Spec.Unschedulable {
		b.WriteString("\x01cordoned")
	}
	return b.String()
}

// scheduleTaints are the taints the TaintToleration filter reads, sorted.
func scheduleTaints(n *corev1.Node) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range n.Spec.Taints {
		if t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b corev1.Taint) int {
		return strings.Compare(a.Key+"="+a.Value+":"+string(a.Effect), b.Key+"="+b.Value+":"+string(b.Effect))
	})
	return out
}

// KeysOf collects the label keys (and matchFields use) of pod specs.
func KeysOf(specs []*corev1.PodSpec) Keys {
	k := Keys{Labels: map[string]bool{}}
	for _, s := range specs {
		k.Add(s)
	}
	return k
}

// Add records the keys one pod spec refers to.
func (k *Keys) Add(s *corev1.PodSpec) {
	for key := range s.NodeSelector {
		k.Labels[key] = true
	}
	for _, term := range requiredTerms(s) {
		for _, r := range term.MatchExpressions {
			k.Labels[r.Key] = true
		}
		if len(term.MatchFields) > 0 {
			k.ByName = true
		}
	}
}

func requiredTerms(s *corev1.PodSpec) []corev1.NodeSelectorTerm {
	a := s.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	return a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
}

package placement

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// rule: a node is out for the incoming pod when some pod of group other sits
// in the node's domain of key (same value of the node label key).
type rule struct {
	key   string
	other *group
}

// rulesFor lists what keeps a pod of g off a node: its own terms against
// other groups, and other groups' terms against g (the scheduler's
// satisfyPodAntiAffinity and satisfyExistingPodsAntiAffinity).
func (m *Model) rulesFor(g *group) []rule { return g.rules }

// buildRules joins every anti-affinity term with the groups it selects,
// once: a term of X selecting Y keeps Y off X's domains and X off Y's. The
// groups are indexed by namespace and label so that a term with an
// equality or In requirement looks only at the groups carrying that label
// value (drain.LabelIndex), never at every group.
func (m *Model) buildRules() {
	ix := drain.NewLabelIndex[*group]()
	for _, g := range m.groups {
		ix.Add(g.ns, g.labels, g)
	}
	for _, x := range m.termGroups {
		for _, t := range x.terms {
			for _, y := range selected(ix, t, x.ns, m.nsLabels) {
				x.rules = append(x.rules, rule{key: t.Key, other: y})
				if y != x {
					y.rules = append(y.rules, rule{key: t.Key, other: x})
				}
				x.counted, y.counted = true, true
			}
		}
	}
	m.scopeRules()
}

// scopeRules notes the groups whose every rule reads a topology key no two
// nodes share a value of (kubernetes.io/hostname, as nodes carry it): a
// pod of such a group that leaves a cordoned node frees room on that node
// alone, which no pod may use until it is uncordoned (leaves).
func (m *Model) scopeRules() {
	perNode := map[string]bool{}
	for _, k := range m.topoKeys {
		perNode[k] = m.onePerNode(k)
	}
	for _, g := range m.groups {
		g.nodeScoped = !slices.ContainsFunc(g.rules, func(r rule) bool { return !perNode[r.key] })
	}
}

// onePerNode says whether no two nodes share a value of label key.
func (m *Model) onePerNode(key string) bool {
	seen := map[string]bool{}
	for _, n := range m.Nodes {
		v, ok := n.Labels[key]
		if ok && seen[v] {
			return false
		}
		seen[v] = ok
	}
	return true
}

// selected lists the groups term t (written in ownerNS) selects.
func selected(ix *drain.LabelIndex[*group], t sched.AntiTerm, ownerNS string, nsLabels func(string) labels.Set) []*group {
	var out []*group
	for _, ns := range scope(ix, t, ownerNS, nsLabels) {
		for _, g := range ix.Candidates(t.Selector, ns) {
			if t.Selector.Matches(labels.Set(g.labels)) {
				out = append(out, g)
			}
		}
	}
	return out
}

// scope lists the namespaces of ix that term t, written in ownerNS,
// covers, in ix's order. Only a namespaceSelector must be tried on every
// namespace; a term without one names its namespaces (by default its own),
// which are looked up. Testing every namespace for every term grew with
// both: on scattered at 5,000 nodes, 18,000 terms in 900 namespaces made
// 16 million tests.
func scope(ix *drain.LabelIndex[*group], t sched.AntiTerm, ownerNS string, nsLabels func(string) labels.Set) []string {
	if t.NamespaceSelector == nil {
		if len(t.Namespaces) == 0 {
			return ix.Among([]string{ownerNS})
		}
		return ix.Among(slices.Collect(maps.Keys(t.Namespaces)))
	}
	var out []string
	for _, ns := range ix.Namespaces() {
		if t.Covers(ownerNS, ns, nsLabels) {
			out = append(out, ns)
		}
	}
	return out
}

// nsLabels are a namespace's labels; a namespace not read still carries
// kubernetes.io/metadata.name, which the API server always sets.
func (m *Model) nsLabels(ns string) labels.Set {
	if l, ok := m.namespaces[ns]; ok {
		return l
	}
	return labels.Set{corev1.LabelMetadataName: ns}
}

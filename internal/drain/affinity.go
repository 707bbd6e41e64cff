package drain

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// group is pods that look the same to required pod anti-affinity: the
// replicas of one workload (files), or one pod (cluster).
type group struct {
	ns     string
	labels map[string]string
	terms  []antiTerm
	// spread are its pods' topology spread constraints (spread.go).
	spread []spreadTerm
	// rules is what keeps its pods off nodes (buildRules).
	rules []rule
	// counted: some rule reads where its pods are, so the model and each
	// Sim count them per topology domain; most groups no rule reads.
	counted bool
}

// antiTerm is one required podAntiAffinity term, parsed.
type antiTerm struct {
	key        string          // topologyKey
	sel        labels.Selector // labelSelector, with matchLabelKeys / mismatchLabelKeys merged
	namespaces map[string]bool // explicit namespaces
	nsSel      labels.Selector // namespaceSelector; nil when unset
}

// rule: a node is out for the incoming pod when some pod of group other sits
// in the node's domain of key (same value of the node label key).
type rule struct {
	key   string
	other *group
}

// parseTerms parses the required anti-affinity terms of spec for pods with
// podLabels in ns. An invalid selector is an error: the API server rejects it.
func parseTerms(spec *corev1.PodSpec, podLabels map[string]string) ([]antiTerm, error) {
	if spec.Affinity == nil || spec.Affinity.PodAntiAffinity == nil {
		return nil, nil
	}
	var out []antiTerm
	for i, t := range spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
		if err != nil {
			return nil, fmt.Errorf("podAntiAffinity term %d: labelSelector: %w", i, err)
		}
		sel, err = mergeLabelKeys(sel, t, podLabels)
		if err != nil {
			return nil, fmt.Errorf("podAntiAffinity term %d: %w", i, err)
		}
		at := antiTerm{key: t.TopologyKey, sel: sel, namespaces: map[string]bool{}}
		for _, ns := range t.Namespaces {
			at.namespaces[ns] = true
		}
		if t.NamespaceSelector != nil {
			if at.nsSel, err = metav1.LabelSelectorAsSelector(t.NamespaceSelector); err != nil {
				return nil, fmt.Errorf("podAntiAffinity term %d: namespaceSelector: %w", i, err)
			}
		}
		out = append(out, at)
	}
	return out, nil
}

// mergeLabelKeys adds matchLabelKeys (key in the pod's value) and
// mismatchLabelKeys (key not in it), as the API server does when it
// creates the pod. A key the pod does not carry adds nothing.
func mergeLabelKeys(sel labels.Selector, t corev1.PodAffinityTerm, podLabels map[string]string) (labels.Selector, error) {
	add := func(keys []string, op selection.Operator) error {
		for _, k := range keys {
			v, ok := podLabels[k]
			if !ok {
				continue
			}
			r, err := labels.NewRequirement(k, op, []string{v})
			if err != nil {
				return err
			}
			sel = sel.Add(*r)
		}
		return nil
	}
	if err := add(t.MatchLabelKeys, selection.In); err != nil {
		return nil, err
	}
	if err := add(t.MismatchLabelKeys, selection.NotIn); err != nil {
		return nil, err
	}
	return sel, nil
}

// rulesFor lists what keeps a pod of g off a node: its own terms against
// other groups, and other groups' terms against g (the scheduler's
// satisfyPodAntiAffinity and satisfyExistingPodsAntiAffinity).
func (m *Model) rulesFor(g *group) []rule { return g.rules }

// buildRules joins every anti-affinity term with the groups it selects,
// once: a term of X selecting Y keeps Y off X's domains and X off Y's. The
// groups are indexed by namespace and label so that a term with an
// equality or In requirement looks only at the groups carrying that label
// value (labelIndex), never at every group.
func (m *Model) buildRules() {
	ix := newLabelIndex[*group]()
	for _, g := range m.groups {
		ix.add(g.ns, g.labels, g)
	}
	for _, x := range m.termGroups {
		for _, t := range x.terms {
			for _, y := range selected(ix, t, x.ns, m.nsLabels) {
				x.rules = append(x.rules, rule{key: t.key, other: y})
				if y != x {
					y.rules = append(y.rules, rule{key: t.key, other: x})
				}
				x.counted, y.counted = true, true
			}
		}
	}
}

// selected lists the groups term t (written in ownerNS) selects.
func selected(ix *labelIndex[*group], t antiTerm, ownerNS string, nsLabels func(string) labels.Set) []*group {
	var out []*group
	for _, ns := range ix.ns {
		if !t.coversNS(ownerNS, ns, nsLabels) {
			continue
		}
		for _, g := range ix.candidates(t.sel, ns) {
			if t.sel.Matches(labels.Set(g.labels)) {
				out = append(out, g)
			}
		}
	}
	return out
}

// coversNS reports whether term t, written in ownerNS, covers namespace ns.
// Without namespaces and namespaceSelector a term covers its own namespace
// only (the scheduler's rule).
func (t antiTerm) coversNS(ownerNS, ns string, nsLabels func(string) labels.Set) bool {
	if len(t.namespaces) == 0 && t.nsSel == nil {
		return ns == ownerNS
	}
	return t.namespaces[ns] || (t.nsSel != nil && t.nsSel.Matches(nsLabels(ns)))
}

// nsLabels are a namespace's labels; a namespace not read still carries
// kubernetes.io/metadata.name, which the API server always sets.
func (m *Model) nsLabels(ns string) labels.Set {
	if l, ok := m.namespaces[ns]; ok {
		return l
	}
	return labels.Set{corev1.LabelMetadataName: ns}
}

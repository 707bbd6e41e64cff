package sched

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// HostnameKey is the topology key of one domain per node.
const HostnameKey = corev1.LabelHostname

// AntiTerm is one required podAntiAffinity term, parsed: DRV013's check of
// a workload against its own pods and internal/placement's rules read the
// same terms.
type AntiTerm struct {
	Key               string          // topologyKey
	Selector          labels.Selector // labelSelector, with matchLabelKeys / mismatchLabelKeys merged
	Namespaces        map[string]bool // explicit namespaces
	NamespaceSelector labels.Selector // nil when unset
}

// AntiTerms parses the required anti-affinity terms of spec for pods with
// podLabels. An invalid selector is an error: the API server rejects it.
func AntiTerms(spec *corev1.PodSpec, podLabels map[string]string) ([]AntiTerm, error) {
	if spec.Affinity == nil || spec.Affinity.PodAntiAffinity == nil {
		return nil, nil
	}
	var out []AntiTerm
	for i, t := range spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		at, err := parseAntiTerm(t, podLabels)
		if err != nil {
			return nil, fmt.Errorf("podAntiAffinity term %d: %w", i, err)
		}
		out = append(out, at)
	}
	return out, nil
}

func parseAntiTerm(t corev1.PodAffinityTerm, podLabels map[string]string) (AntiTerm, error) {
	sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
	if err != nil {
		return AntiTerm{}, fmt.Errorf("labelSelector: %w", err)
	}
	if sel, err = mergeLabelKeys(sel, t, podLabels); err != nil {
		return AntiTerm{}, err
	}
	at := AntiTerm{Key: t.TopologyKey, Selector: sel, Namespaces: map[string]bool{}}
	for _, ns := range t.Namespaces {
		at.Namespaces[ns] = true
	}
	if t.NamespaceSelector != nil {
		if at.NamespaceSelector, err = metav1.LabelSelectorAsSelector(t.NamespaceSelector); err != nil {
			return AntiTerm{}, fmt.Errorf("namespaceSelector: %w", err)
		}
	}
	return at, nil
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

// Covers reports whether term t, written in ownerNS, covers namespace ns;
// nsLabels gives a namespace's labels, asked only for a namespaceSelector.
// Without namespaces and namespaceSelector a term covers its own namespace
// only (the scheduler's rule).
func (t AntiTerm) Covers(ownerNS, ns string, nsLabels func(string) labels.Set) bool {
	if len(t.Namespaces) == 0 && t.NamespaceSelector == nil {
		return ns == ownerNS
	}
	return t.Namespaces[ns] || (t.NamespaceSelector != nil && t.NamespaceSelector.Matches(nsLabels(ns)))
}

// SelfAntiAffinity returns the index of the first required podAntiAffinity
// term of t with topologyKey that selects t's own pods, and whether there is
// one. Such a term keeps the replicas of one workload in distinct domains.
// namespace is the workload's; nsLabels are its namespace's labels (the
// kubernetes.io/metadata.name label is added here), for namespaceSelector.
//
// A term selects the pod when the pod's namespace is in the term's
// namespaces (by default its own) or matches namespaceSelector, and the
// labelSelector (nil selects nothing) matches its labels. matchLabelKeys
// keep selecting replicas, which share their labels; mismatchLabelKeys that
// the pod carries exclude them. A term the API server would reject (an
// invalid selector) selects nothing.
func SelfAntiAffinity(t *corev1.PodTemplateSpec, namespace string, nsLabels map[string]string, topologyKey string) (int, bool) {
	a := t.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return 0, false
	}
	withName := func(string) labels.Set {
		set := labels.Set{corev1.LabelMetadataName: namespace}
		for k, v := range nsLabels {
			set[k] = v
		}
		return set
	}
	for i, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if term.TopologyKey != topologyKey {
			continue
		}
		at, err := parseAntiTerm(term, t.Labels)
		if err == nil && at.Covers(namespace, namespace, withName) && at.Selector.Matches(labels.Set(t.Labels)) {
			return i, true
		}
	}
	return 0, false
}

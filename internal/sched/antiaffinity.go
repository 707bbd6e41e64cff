package sched

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// HostnameKey is the topology key of one domain per node.
const HostnameKey = corev1.LabelHostname

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
// the pod carries exclude them.
func SelfAntiAffinity(t *corev1.PodTemplateSpec, namespace string, nsLabels map[string]string, topologyKey string) (int, bool) {
	a := t.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return 0, false
	}
	for i, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if term.TopologyKey == topologyKey && selectsSelf(&term, t.Labels, namespace, nsLabels) {
			return i, true
		}
	}
	return 0, false
}

func selectsSelf(term *corev1.PodAffinityTerm, podLabels map[string]string, namespace string, nsLabels map[string]string) bool {
	if !inNamespaces(term, namespace, nsLabels) {
		return false
	}
	sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
	if err != nil || !sel.Matches(labels.Set(podLabels)) {
		return false
	}
	for _, k := range term.MismatchLabelKeys {
		if _, ok := podLabels[k]; ok {
			return false
		}
	}
	return true
}

func inNamespaces(term *corev1.PodAffinityTerm, namespace string, nsLabels map[string]string) bool {
	if len(term.Namespaces) == 0 && term.NamespaceSelector == nil {
		return true
	}
	if slices.Contains(term.Namespaces, namespace) {
		return true
	}
	if term.NamespaceSelector == nil {
		return false
	}
	sel, err := metav1.LabelSelectorAsSelector(term.NamespaceSelector)
	if err != nil {
		return false
	}
	set := labels.Set{corev1.LabelMetadataName: namespace}
	for k, v := range nsLabels {
		set[k] = v
	}
	return sel.Matches(set)
}

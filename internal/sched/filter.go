package sched

import (
	corev1 "k8s.io/api/core/v1"
	corehelpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// Reasons, worded as the scheduler's filter plugins word them.
const (
	ReasonUnschedulable = "node(s) were unschedulable"
	ReasonTaint         = "node(s) had untolerated taint(s)"
	ReasonAffinity      = "node(s) didn't match Pod's node affinity/selector"
)

// unschedulableTaint is what NodeUnschedulable checks tolerations against.
var unschedulableTaint = corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}

// filter is a pod spec prepared for matching.
type filter struct {
	spec     *corev1.PodSpec
	affinity nodeaffinity.RequiredNodeAffinity
}

func newFilter(s *corev1.PodSpec) filter {
	return filter{spec: s, affinity: nodeaffinity.NewRequiredNodeAffinity(s.NodeSelector, s.Affinity)}
}

// reason returns why node fails the first filter, in the scheduler's order,
// or "" when the pod may run there. matches tells whether the node affinity
// alone matches, whatever the other filters say.
func (f filter) reason(n *corev1.Node) (reason string, matches bool) {
	// The scheduler ignores the error: a term that cannot be parsed simply
	// never matches (see reference/k8s-semantics.md §5).
	matches, _ = f.affinity.Match(n)
	switch {
	case n.Spec.Unschedulable && !tolerates(f.spec.Tolerations, &unschedulableTaint):
		return ReasonUnschedulable, matches
	case untolerated(n, f.spec.Tolerations):
		return ReasonTaint, matches
	case !matches:
		return ReasonAffinity, matches
	}
	return "", matches
}

func tolerates(ts []corev1.Toleration, taint *corev1.Taint) bool {
	return corehelpers.TolerationsTolerateTaint(klog.Background(), ts, taint, false)
}

func untolerated(n *corev1.Node, ts []corev1.Toleration) bool {
	_, found := corehelpers.FindMatchingUntoleratedTaint(klog.Background(), n.Spec.Taints, ts, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}, false)
	return found
}

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

// verdict judges node in the scheduler's order. Reason is why node fails
// the first filter, or "" when the pod may run there; Matches tells whether
// the node affinity alone matches and Tolerated whether the pod tolerates
// the node's NoSchedule/NoExecute taints, whatever the other filters say.
func (f filter) verdict(n *corev1.Node) (reason string, matches, tolerated bool) {
	// The scheduler ignores the error: a term that cannot be parsed simply
	// never matches (component-helpers scheduling/corev1/nodeaffinity).
	matches, _ = f.affinity.Match(n)
	tolerated = !untolerated(n, f.spec.Tolerations)
	switch {
	case n.Spec.Unschedulable && !tolerates(f.spec.Tolerations, &unschedulableTaint):
		reason = ReasonUnschedulable
	case !tolerated:
		reason = ReasonTaint
	case !matches:
		reason = ReasonAffinity
	}
	return reason, matches, tolerated
}

func tolerates(ts []corev1.Toleration, taint *corev1.Taint) bool {
	return corehelpers.TolerationsTolerateTaint(klog.Background(), ts, taint, false)
}

func untolerated(n *corev1.Node, ts []corev1.Toleration) bool {
	_, found := UntoleratedTaint(n, ts)
	return found
}

// UntoleratedTaint is the first of n's NoSchedule and NoExecute taints
// that ts do not tolerate (the TaintToleration filter's test).
func UntoleratedTaint(n *corev1.Node, ts []corev1.Toleration) (corev1.Taint, bool) {
	return corehelpers.FindMatchingUntoleratedTaint(klog.Background(), n.Spec.Taints, ts, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}, false)
}

package inventory

import corev1 "k8s.io/api/core/v1"

// PodCondition returns the pod's condition of type t, or nil.
func PodCondition(p *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// PodReady is podutil.IsPodReady: the Ready condition is True, which is
// what the disruption controller counts as healthy.
func PodReady(p *corev1.Pod) bool {
	c := PodCondition(p, corev1.PodReady)
	return c != nil && c.Status == corev1.ConditionTrue
}

// Replicas applies the API server's default of 1 replica.
func Replicas(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

package drain

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Flags are the kubectl drain flags that change which pods may go (the GPU
// Operator's driver.upgradePolicy.drain.force and .deleteEmptyDir).
// --ignore-daemonsets is always assumed: the operator and the lab use it.
type Flags struct {
	Force          bool // --force: delete pods that declare no controller
	DeleteEmptyDir bool // --delete-emptydir-data: delete pods with emptyDir volumes
}

// Verdict is what kubectl drain's filters make of one pod (kubectl pkg/drain/filters.go).
type Verdict struct {
	// Stays is set for pods the drain leaves alone: "daemonset" (ignored
	// with --ignore-daemonsets) or "mirror" (static pods, skipped).
	Stays string
	// NeedsForce: a running pod without a controller.
	NeedsForce bool
	// NeedsDeleteEmptyDir: a running pod with an emptyDir volume.
	NeedsDeleteEmptyDir bool
}

// Refused reports whether the drain, run with flags, refuses this pod. kubectl
// then evicts no pod at all and leaves the node cordoned.
func (v Verdict) Refused(f Flags) bool {
	return (v.NeedsForce && !f.Force) || (v.NeedsDeleteEmptyDir && !f.DeleteEmptyDir)
}

// Filter applies kubectl drain's daemonSet, mirrorPod, localStorage and
// unreplicated filters (pkg/drain/filters.go). kubectl stops at the first
// filter that refuses; Filter reports both needs so that one run names every
// flag the drain will want.
func Filter(pod *corev1.Pod) Verdict {
	finished := pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
	ref := metav1.GetControllerOfNoCopy(pod)
	switch {
	case ref != nil && isDaemonSet(ref) && !finished:
		return Verdict{Stays: "daemonset"}
	case hasMirrorAnnotation(pod):
		return Verdict{Stays: "mirror"}
	case finished:
		return Verdict{}
	}
	return Verdict{NeedsForce: ref == nil, NeedsDeleteEmptyDir: hasEmptyDir(&pod.Spec)}
}

// isDaemonSet is kubectl's isControllerRefDaemonSet: kind and apps/v1.
func isDaemonSet(ref *metav1.OwnerReference) bool {
	return ref.Kind == "DaemonSet" && ref.APIVersion == "apps/v1"
}

func hasMirrorAnnotation(pod *corev1.Pod) bool {
	_, ok := pod.Annotations[corev1.MirrorPodAnnotationKey]
	return ok
}

func hasEmptyDir(spec *corev1.PodSpec) bool {
	for _, v := range spec.Volumes {
		if v.EmptyDir != nil {
			return true
		}
	}
	return false
}

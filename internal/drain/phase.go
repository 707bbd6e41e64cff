package drain

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/drvcheck/drvcheck/internal/gpures"
)

// Phase is one step of a driver upgrade that removes pods from a node:
// the GPU Operator's GPU-pod deletion, its fallback drain, or the manual
// procedure's kubectl drain. Each is kubectl's drain helper (its filters,
// then the eviction API) over the pods the phase takes.
type Phase struct {
	Name string
	// GPU: the phase takes the pods that use a GPU (GPUPod) and those Or
	// selects; otherwise every pod Selector selects (nil: every pod).
	GPU      bool
	Or       labels.Selector
	Selector labels.Selector
	Flags    Flags
	// Strict: a pod taken that the filters keep on the node (a DaemonSet or
	// mirror pod) fails the phase, as the count of deletable pods then
	// differs from the candidates' (k8s-operator-libs pod_manager.go).
	Strict bool
	// TimeoutSeconds bounds the phase; 0 waits forever.
	TimeoutSeconds int
}

// Screen applies the phase's filters to the pods on node, as kubectl's
// drain helper does before it evicts anything: the result names the pods
// they refuse (with why) and keep, and evict is what the phase would
// evict when nothing is refused.
func (ph Phase) Screen(node string, pods []*Pod) (res DrainResult, evict []*Pod) {
	res.Node = node
	for _, p := range pods {
		if !ph.takes(p) {
			continue
		}
		v := p.Verdict
		if v.Stays != "" {
			if ph.Strict {
				res.Kept = append(res.Kept, p)
				res.Refused = append(res.Refused, p)
			} else {
				res.Stays = append(res.Stays, p)
			}
			continue
		}
		if v.NeedsForce {
			res.NeedsForce = append(res.NeedsForce, p)
		}
		if v.NeedsDeleteEmptyDir {
			res.NeedsDeleteEmptyDir = append(res.NeedsDeleteEmptyDir, p)
		}
		if v.Refused(ph.Flags) {
			res.Refused = append(res.Refused, p)
		}
		evict = append(evict, p)
	}
	return res, evict
}

// takes says whether the phase removes p.
func (ph Phase) takes(p *Pod) bool {
	if ph.GPU {
		running := p.Phase == corev1.PodRunning || p.Phase == corev1.PodPending
		return running && (GPUPod(p.Spec) || p.GPUClaim || ph.Or != nil && !ph.Or.Empty() && ph.Or.Matches(labels.Set(p.Labels)))
	}
	return ph.Selector == nil || ph.Selector.Matches(labels.Set(p.Labels))
}

// GPUPod is the GPU Operator's gpuPodSpecFilter on a pod spec: a
// container (not an init container) that requests or limits a resource
// named nvidia.com/gpu* or nvidia.com/mig-*. Its DRA part, an allocated
// gpu.nvidia.com claim, is Pod.GPUClaim (live pods; claims.go).
func GPUPod(spec *corev1.PodSpec) bool {
	for _, c := range spec.Containers {
		for _, rl := range []corev1.ResourceList{c.Resources.Limits, c.Resources.Requests} {
			for name := range rl {
				if gpures.IsGPU(name) {
					return true
				}
			}
		}
	}
	return false
}

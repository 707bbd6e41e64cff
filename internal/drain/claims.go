package drain

import (
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
)

// GPUDriver is the DRA driver of NVIDIA GPUs.
const GPUDriver = "gpu.nvidia.com"

// gpuClaims tells, for live pods, which hold a GPU through DRA, as the
// GPU Operator's filter does (nodelabeling_controller.go): a claim the pod
// holds (status.resourceClaimStatuses) with an allocated result of the
// gpu.nvidia.com driver that is not admin access. A claim that cannot be
// read counts as a GPU claim, as there.
type gpuClaims map[string]bool // namespace/name of a claim -> holds a GPU

func newGPUClaims(claims []*resourcev1.ResourceClaim) gpuClaims {
	out := make(gpuClaims, len(claims))
	for _, c := range claims {
		out[c.Namespace+"/"+c.Name] = allocatesGPU(c)
	}
	return out
}

func allocatesGPU(c *resourcev1.ResourceClaim) bool {
	if c.Status.Allocation == nil {
		return false
	}
	for _, r := range c.Status.Allocation.Devices.Results {
		if r.Driver == GPUDriver && (r.AdminAccess == nil || !*r.AdminAccess) {
			return true
		}
	}
	return false
}

// holds says whether pod holds a GPU claim.
func (g gpuClaims) holds(pod *corev1.Pod) bool {
	for _, s := range pod.Status.ResourceClaimStatuses {
		if s.ResourceClaimName == nil {
			continue // no claim was needed
		}
		gpu, known := g[pod.Namespace+"/"+*s.ResourceClaimName]
		if gpu || !known {
			return true
		}
	}
	return false
}

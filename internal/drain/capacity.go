package drain

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// gpuUse counts, per node and GPU resource (nvidia.com/gpu, MIG slices),
// what the pods on it request. One flat map: a simulation copies it whole.
type gpuUse map[gpuKey]int64

type gpuKey struct {
	node string
	name corev1.ResourceName
}

func (u gpuUse) add(node string, req corev1.ResourceList, sign int64) {
	for name, q := range req {
		u[gpuKey{node, name}] += sign * q.Value()
	}
}

// gpuRequests is what a pod of spec asks of the GPU resources: its
// containers' requests, or their limits where requests are unset (an
// extended resource's request defaults to its limit).
func gpuRequests(spec *corev1.PodSpec) corev1.ResourceList {
	var out corev1.ResourceList
	add := func(name corev1.ResourceName, q resource.Quantity) {
		if out == nil {
			out = corev1.ResourceList{}
		}
		sum := out[name]
		sum.Add(q)
		out[name] = sum
	}
	for _, c := range spec.Containers {
		for name, q := range c.Resources.Requests {
			if IsGPUResource(name) {
				add(name, q)
			}
		}
		for name, q := range c.Resources.Limits {
			if _, set := c.Resources.Requests[name]; IsGPUResource(name) && !set {
				add(name, q)
			}
		}
	}
	return out
}

// gpuFits is the scheduler's resource fit for GPUs alone: p's requests
// against what n allocates less what the pods on it take now. A node
// whose status lists nothing allocatable (a manifest without status) is
// taken to fit; one that lists allocatables but not the resource has none
// of it. self is the node p is leaving, whose share does not count.
func (s *Sim) gpuFits(p *Pod, n *corev1.Node, self *corev1.Node) (bool, corev1.ResourceName) {
	if len(p.gpu) == 0 || len(n.Status.Allocatable) == 0 {
		return true, ""
	}
	for name, q := range p.gpu {
		alloc := n.Status.Allocatable[name]
		k := gpuKey{n.Name, name}
		used := s.m.gpuUsed[k] + s.gpuDelta[k]
		if self != nil && self.Name == n.Name {
			used -= q.Value()
		}
		if used+q.Value() > alloc.Value() {
			return false, name
		}
	}
	return true, ""
}

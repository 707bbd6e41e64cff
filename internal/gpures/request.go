package gpures

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// IsGPU says whether name is a GPU resource of NVIDIA's device plugin:
// nvidia.com/gpu, its shared form nvidia.com/gpu.shared, or a MIG
// profile nvidia.com/mig-<profile>.
func IsGPU(name corev1.ResourceName) bool {
	return strings.HasPrefix(string(name), "nvidia.com/gpu") || strings.HasPrefix(string(name), "nvidia.com/mig-")
}

// Request is a GPU resource a pod asks of its node.
type Request struct {
	Name  corev1.ResourceName
	Value int64
}

// Requests is what a pod of spec asks of the GPU resources, by name, in
// name order: each container's requests, or its limits where requests are
// unset (an extended resource's request defaults to its limit, and may not
// be overcommitted). Init containers count as the scheduler counts them
// (component-helpers v0.37.2 resource/helpers.go:235-287): a sidecar (an
// init container that restarts always) adds to the containers and to
// every later init container; the pod asks for the most of the
// containers' sum and each init container's use. Only GPU resources are
// summed: the drain model asks this of every pod of the fleet.
func Requests(spec *corev1.PodSpec) []Request {
	var total, sidecars, inits map[corev1.ResourceName]int64
	for i := range spec.Containers {
		total = addTo(total, &spec.Containers[i])
	}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			total = addTo(total, c)
			sidecars = addTo(sidecars, c)
			inits = maxOf(inits, sidecars)
			continue
		}
		inits = maxOf(inits, addTo(maxOf(nil, sidecars), c))
	}
	total = maxOf(total, inits)
	out := make([]Request, 0, len(total))
	for name, v := range total {
		out = append(out, Request{name, v})
	}
	slices.SortFunc(out, func(a, b Request) int { return strings.Compare(string(a.Name), string(b.Name)) })
	return out
}

// ContainerMost is the most of each GPU resource one container (or init
// container) of spec asks for: the device plugin's Allocate judges each
// container's request alone.
func ContainerMost(spec *corev1.PodSpec) map[corev1.ResourceName]int64 {
	var most map[corev1.ResourceName]int64
	for _, cs := range [][]corev1.Container{spec.Containers, spec.InitContainers} {
		for i := range cs {
			most = maxOf(most, addTo(nil, &cs[i]))
		}
	}
	return most
}

// addTo adds c's GPU requests (its limits where unset) to m, made on
// first use.
func addTo(m map[corev1.ResourceName]int64, c *corev1.Container) map[corev1.ResourceName]int64 {
	add := func(name corev1.ResourceName, q resource.Quantity) {
		if m == nil {
			m = map[corev1.ResourceName]int64{}
		}
		m[name] += q.Value()
	}
	for name, q := range c.Resources.Requests {
		if IsGPU(name) {
			add(name, q)
		}
	}
	for name, q := range c.Resources.Limits {
		if _, set := c.Resources.Requests[name]; IsGPU(name) && !set {
			add(name, q)
		}
	}
	return m
}

// maxOf raises each of m's values to from's, m made on first use.
func maxOf(m, from map[corev1.ResourceName]int64) map[corev1.ResourceName]int64 {
	for name, v := range from {
		if m == nil {
			m = map[corev1.ResourceName]int64{}
		}
		if v > m[name] {
			m[name] = v
		}
	}
	return m
}

// Allocatable is what n offers pods. The API server defaults a node's
// status.allocatable to its status.capacity when only capacity is written
// (kubernetes pkg/apis/core/v1/defaults.go:388, SetDefaults_NodeStatus), so
// a node manifest that lists capacity alone holds that much.
func Allocatable(n *corev1.Node) corev1.ResourceList {
	if n.Status.Allocatable == nil {
		return n.Status.Capacity
	}
	return n.Status.Allocatable
}

package drain

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// DefaultMaxPods is the kubelet's default --max-pods: what a node whose
// status lists no allocatable pods (a manifest without status) is taken
// to hold. The scheduler's resource fit counts pods like any resource, so
// no node runs more pods than it allocates, however many replicas ask.
const DefaultMaxPods = 110

// use is what the pods on each node take of it: pods, and GPU requests per
// resource (nvidia.com/gpu, MIG slices). Pods have a map of their own,
// keyed by the node's name alone: every search looks them up on every node
// it tries. A Sim's clone shares what it had (layered.go).
type use struct {
	pods layered[string, int32]
	gpus layered[useKey, int64]
}

type useKey struct {
	node string
	name corev1.ResourceName
}

// request is a GPU resource a pod asks of its node.
type request struct {
	name  corev1.ResourceName
	value int64
}

// names lists the GPU resources u counts.
func (u *use) names() []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, level := range append([]map[useKey]int64{u.gpus.own}, u.gpus.frozen...) {
		for k := range level {
			if !slices.Contains(out, k.name) {
				out = append(out, k.name)
			}
		}
	}
	return out
}

func (u *use) clone() use { return use{pods: u.pods.clone(), gpus: u.gpus.clone()} }

// add counts p on node, or takes it off with sign -1.
func (u *use) add(node string, p *Pod, sign int32) {
	if p.holds {
		u.pods.set(node, u.pods.at(node)+sign)
	}
	for _, r := range p.gpu {
		k := useKey{node, r.name}
		u.gpus.set(k, u.gpus.at(k)+int64(sign)*r.value)
	}
}

// gpuRequests is what a pod of spec asks of the GPU resources, by name:
// its containers' requests, or their limits where requests are unset (an
// extended resource's request defaults to its limit).
func gpuRequests(spec *corev1.PodSpec) []request {
	sums := map[corev1.ResourceName]*resource.Quantity{}
	add := func(name corev1.ResourceName, q resource.Quantity) {
		if sums[name] == nil {
			sums[name] = &resource.Quantity{}
		}
		sums[name].Add(q)
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
	var out []request
	for name, q := range sums {
		out = append(out, request{name, q.Value()})
	}
	slices.SortFunc(out, func(a, b request) int { return strings.Compare(string(a.name), string(b.name)) })
	return out
}

// holdsNode says whether a pod in phase takes its node's room: the
// scheduler no longer counts a finished pod.
func holdsNode(phase corev1.PodPhase) bool {
	return phase != corev1.PodSucceeded && phase != corev1.PodFailed
}

// fits is the scheduler's resource fit for pods and GPUs alone: p against
// what n allocates less what the pods on it take now. self is the node p
// is leaving, whose share does not count. The reason is the scheduler's:
// "Too many pods", "Insufficient nvidia.com/gpu".
func (s *Sim) fits(p *Pod, n *corev1.Node, self *corev1.Node) (bool, string) {
	leaving := self != nil && self.Name == n.Name
	if p.holds {
		used := int64(s.m.used.pods.at(n.Name) + s.usedDelta.pods.at(n.Name))
		if leaving {
			used--
		}
		if used >= maxPods(n) {
			return false, "Too many pods"
		}
	}
	list := allocatable(n)
	if len(list) == 0 {
		return true, "" // a manifest without status: any GPU request fits
	}
	for _, r := range p.gpu {
		alloc := list[r.name]
		k := useKey{n.Name, r.name}
		used := s.m.used.gpus.at(k) + s.usedDelta.gpus.at(k)
		if leaving {
			used -= r.value
		}
		if used+r.value > alloc.Value() {
			return false, "Insufficient " + string(r.name)
		}
	}
	return true, ""
}

// maxPods is the pods n allocates, the kubelet's default when it lists none.
func maxPods(n *corev1.Node) int64 {
	if q, ok := allocatable(n)[corev1.ResourcePods]; ok {
		return q.Value()
	}
	return DefaultMaxPods
}

// allocatable is what n offers pods. The API server defaults a node's
// status.allocatable to its status.capacity when only capacity is written
// (kubernetes pkg/apis/core/v1/defaults.go:388, SetDefaults_NodeStatus), so
// a node manifest that lists capacity alone holds that much.
func allocatable(n *corev1.Node) corev1.ResourceList {
	if n.Status.Allocatable == nil {
		return n.Status.Capacity
	}
	return n.Status.Allocatable
}

package placement

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/gpures"
	"github.com/drvcheck/drvcheck/internal/placement/layered"
)

// DefaultMaxPods is the kubelet's default --max-pods: what a node whose
// status lists no allocatable pods (a manifest without status) is taken
// to hold. The scheduler's resource fit counts pods like any resource, so
// no node runs more pods than it allocates, however many replicas ask.
const DefaultMaxPods = 110

// use is what the pods on each node take of it: pods, and GPU requests per
// resource (nvidia.com/gpu, MIG slices). Both are keyed by numbers, the
// node's in the model's order and the resource's (Model.resources): every
// search looks them up on every node it tries, and a number hashes and
// compares in one step where a name is read whole. A Sim's clone shares
// what it had (layered).
type use struct {
	pods layered.Map[int32, int32]
	gpus layered.Map[useKey, int64]
}

type useKey struct{ node, res int32 }

func (u *use) clone() use { return use{pods: u.pods.Clone(), gpus: u.gpus.Clone()} }

// add counts p on the node numbered node, or takes it off with sign -1.
func (u *use) add(node int32, p *drain.Pod, sign int32) {
	g := groupOf(p)
	if g.holds {
		u.pods.Set(node, u.pods.At(node)+sign)
	}
	for i, r := range g.gpu {
		k := useKey{node, g.res[i]}
		u.gpus.Set(k, u.gpus.At(k)+int64(sign)*r.Value)
	}
}

// addOn is add on the node named node; a node the model does not hold
// has no room any search tests, and is not counted.
func (m *Model) addOn(u *use, node string, p *drain.Pod, sign int32) {
	if at, ok := m.order[node]; ok {
		u.add(int32(at), p, sign)
	}
}

// holdsNode says whether a pod in phase takes its node's room: the
// scheduler no longer counts a finished pod.
func holdsNode(phase corev1.PodPhase) bool {
	return phase != corev1.PodSucceeded && phase != corev1.PodFailed
}

// fits is the scheduler's resource fit for pods and GPUs alone: p against
// what n, numbered at in the model's order, allocates less what the pods
// on it take now. self is the node p is leaving, whose share does not
// count. The reason is the scheduler's: "Too many pods", "Insufficient
// nvidia.com/gpu".
func (s *Sim) fits(p *drain.Pod, n *corev1.Node, at int32, self *corev1.Node) (bool, string) {
	leaving, g := self != nil && self.Name == n.Name, groupOf(p)
	if g.holds {
		used := int64(s.m.used.pods.At(at) + s.usedDelta.pods.At(at))
		if leaving {
			used--
		}
		if used >= maxPods(n) {
			return false, "Too many pods"
		}
	}
	list := gpures.Allocatable(n)
	if len(list) == 0 {
		return true, "" // a manifest without status: any GPU request fits
	}
	for i, r := range g.gpu {
		alloc := list[r.Name]
		have := alloc.Value()
		if have == 0 { // left to the DRA plugin (gpures.Offer.WithExtended)
			have = s.m.extended[n.Name][r.Name]
		}
		k := useKey{at, g.res[i]}
		used := s.m.used.gpus.At(k) + s.usedDelta.gpus.At(k)
		if leaving {
			used -= r.Value
		}
		if used+r.Value > have {
			return false, "Insufficient " + string(r.Name)
		}
	}
	return true, ""
}

// maxPods is the pods n allocates, the kubelet's default when it lists none.
func maxPods(n *corev1.Node) int64 {
	if q, ok := gpures.Allocatable(n)[corev1.ResourcePods]; ok {
		return q.Value()
	}
	return DefaultMaxPods
}

package placement

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// Reasons the scheduler's PodTopologySpread filter gives for a node.
const (
	ReasonSpread      = "node(s) didn't match pod topology spread constraints"
	ReasonSpreadLabel = "node(s) didn't match pod topology spread constraints (missing required label)"
)

// spreadTerm is one topologySpreadConstraint with whenUnsatisfiable
// DoNotSchedule (sched.SpreadTerm), with the groups whose pods it counts.
// The scheduler's plugin is not importable; this follows the API's own
// account of the fields (k8s.io/api v0.37.2 core/v1/types.go:4919-5033)
// and the documentation ("Pod Topology Spread Constraints",
// kubernetes.io/docs/concepts/scheduling-eviction):
//   - a node without the topology key is rejected;
//   - placing the pod on a node of domain d gives d's count of matching
//     pods, plus one when the pod matches its own selector, minus the
//     global minimum; more than maxSkew rejects the node;
//   - the global minimum is the least count over the eligible domains, or
//     0 when there are fewer than minDomains (1 when unset);
//   - eligible domains are those of nodes that match the pod's node
//     affinity and nodeSelector (nodeAffinityPolicy Honor, the default)
//     and, with nodeTaintsPolicy Honor, whose taints the pod tolerates
//     (Ignore is the default: a cordoned node stays a domain);
//   - matching pods are those of the pod's namespace that the label
//     selector, with matchLabelKeys' values from the pod's labels, selects.
//
// ScheduleAnyway only scores nodes, and is not modelled. Counts are per
// domain over every node of it, where the scheduler counts only the pods
// on nodes that pass the inclusion policies: the two differ only when a
// domain mixes nodes the pod's affinity admits with nodes it does not.
type spreadTerm struct {
	sched.SpreadTerm
	// groups are the groups its selector picks in the pod's namespace
	// (buildSpread).
	groups []*group
}

// spreadTerms are the spread terms of ts, not yet joined.
func spreadTerms(ts []sched.SpreadTerm) []spreadTerm {
	var out []spreadTerm
	for _, t := range ts {
		out = append(out, spreadTerm{SpreadTerm: t})
	}
	return out
}

// buildSpread joins every spread term with the groups its selector picks
// in its own namespace, and marks them counted per domain.
func (m *Model) buildSpread() {
	ix := drain.NewLabelIndex[*group]()
	for _, g := range m.groups {
		ix.Add(g.ns, g.labels, g)
	}
	for _, x := range m.groups {
		for i := range x.spread {
			t := &x.spread[i]
			for _, y := range ix.Candidates(t.Selector, x.ns) {
				if t.Selector.Matches(labels.Set(y.labels)) {
					t.groups = append(t.groups, y)
					y.counted = true
				}
			}
		}
	}
}

// spreads says whether p has topology spread constraints.
func spreads(p *drain.Pod) bool {
	g := groupOf(p)
	return g != nil && len(g.spread) > 0
}

// spreadFloor is, per spread term of a pod, the global minimum its skew is
// measured from, as the simulation stands.
type spreadFloor []int

// spreadFloors computes p's floors in placement pl; nil when p has no
// spread term. self is the node a dry run takes p off.
func (s *Sim) spreadFloors(p *drain.Pod, pl *sched.Placement, self *corev1.Node) spreadFloor {
	g := groupOf(p)
	if g == nil || len(g.spread) == 0 {
		return nil
	}
	floors := make(spreadFloor, len(g.spread))
	tolerates := g.toleratesCordon
	for i, t := range g.spread {
		least, domains := -1, map[string]bool{}
		for _, c := range pl.Classes {
			if t.HonorAffinity && !c.Matches || t.HonorTaints && !c.Tolerated {
				continue
			}
			for _, n := range c.Class.Nodes {
				v, ok := n.Labels[t.Key]
				if !ok || domains[v] || t.HonorTaints && !tolerates && s.Cordoned(n.Name) {
					continue
				}
				domains[v] = true
				if c := s.spreadCount(t, v, self); least < 0 || c < least {
					least = c
				}
			}
		}
		if len(domains) < t.MinDomains || least < 0 {
			least = 0
		}
		floors[i] = least
	}
	return floors
}

// spreadCount counts the pods term t selects in the domain of its key with
// value v, without the pod a dry run takes off self.
func (s *Sim) spreadCount(t spreadTerm, v string, self *corev1.Node) int {
	c := 0
	for _, y := range t.groups {
		c += s.count(countKey{y, t.Key, v})
	}
	if self != nil && self.Labels[t.Key] == v && t.SelfMatch {
		c-- // the pod being tested is one of them, and leaves
	}
	return c
}

// skewed says why the spread terms reject n for p ("" when none does).
func (s *Sim) skewed(p *drain.Pod, n *corev1.Node, floors spreadFloor, self *corev1.Node) string {
	for i, t := range groupOf(p).spread[:len(floors)] {
		v, ok := n.Labels[t.Key]
		if !ok {
			return ReasonSpreadLabel
		}
		self1 := 0
		if t.SelfMatch {
			self1 = 1
		}
		if s.spreadCount(t, v, self)+self1-floors[i] > t.MaxSkew {
			return ReasonSpread
		}
	}
	return ""
}

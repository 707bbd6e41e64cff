package sched

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// ToleratesCordon reports whether spec tolerates the taint the
// NodeUnschedulable filter checks, so that it may still land on a node a
// simulation cordons (as DaemonSet pods do). Drain simulations cordon nodes
// on top of a fleet without rebuilding its classes: a cordoned node is then
// eligible only for specs that tolerate it.
func ToleratesCordon(spec *corev1.PodSpec) bool {
	return tolerates(spec.Tolerations, &unschedulableTaint)
}

// EligibleByName lists the nodes that pass every filter, sorted by name, so
// that simulations fill them in an order that does not depend on how the
// input was read.
func (p *Placement) EligibleByName() []*corev1.Node {
	out := p.EligibleNodes()
	slices.SortFunc(out, func(a, b *corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Uncordoned copies nodes with spec.unschedulable cleared, and the taint
// the node lifecycle controller adds for it: a node cordoned in the files
// still holds the pods it ran before its cordon, placed as if uncordoned.
func Uncordoned(nodes []*corev1.Node) []*corev1.Node {
	out := make([]*corev1.Node, len(nodes))
	for i, n := range nodes {
		if !n.Spec.Unschedulable {
			out[i] = n
			continue
		}
		c := *n
		c.Spec.Unschedulable = false
		c.Spec.Taints = nil
		for _, t := range n.Spec.Taints {
			if t.Key != corev1.TaintNodeUnschedulable {
				c.Spec.Taints = append(c.Spec.Taints, t)
			}
		}
		out[i] = &c
	}
	return out
}

package workload

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/input/docval"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// placement describes where w's pods may run (DRV010): how many nodes
// pass every filter, how many its node affinity and nodeSelector match,
// why the others fail, worded as the scheduler words it, and the field to
// blame when nothing matches.
func (c *workloadFacts) placement(w *inventory.Workload, p *sched.Placement) map[string]any {
	key := placementKey{p, docval.Pointer(c.constraintField(w, p))}
	return c.once(key, func() map[string]any {
		shared := c.placementMessage(p)
		return map[string]any{
			"total":    p.Total,
			"eligible": p.Eligible,
			"matching": p.Matching,
			"reasons":  shared["reasons"],
			"message":  shared["message"],
			"field":    key.field,
		}
	})
}

type placementKey struct {
	p     *sched.Placement
	field string
}

// placementMessage builds the parts shared by every workload of the same
// constraints once.
func (c *workloadFacts) placementMessage(p *sched.Placement) map[string]any {
	if m, ok := c.messages[p]; ok {
		return m
	}
	reasons := make(map[string]any, len(p.Reasons))
	for r, n := range p.Reasons {
		reasons[r] = n
	}
	m := map[string]any{"reasons": reasons, "message": p.Message()}
	c.messages[p] = m
	return m
}

// constraintField points at what keeps w off every node: the required node
// affinity, or the nodeSelector when it alone matches nothing.
func (c *workloadFacts) constraintField(w *inventory.Workload, p *sched.Placement) []any {
	s := &w.Template.Spec
	hasAffinity := s.Affinity != nil && s.Affinity.NodeAffinity != nil &&
		s.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil
	switch {
	case len(s.NodeSelector) > 0 && !hasAffinity:
		return specField(w, "nodeSelector")
	case len(s.NodeSelector) > 0 && p.Matching == 0 && p.Total > 0:
		if c.fleet.Place(&corev1.PodSpec{NodeSelector: s.NodeSelector}).Matching == 0 {
			return specField(w, "nodeSelector")
		}
	case !hasAffinity:
		return specField(w)
	}
	return specField(w, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
}

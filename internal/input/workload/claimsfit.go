package workload

import (
	"fmt"

	"github.com/drvcheck/drvcheck/internal/input/docval"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// claimsFit is workloads[].claims_fit (DRV015): set only when a DRA claim
// the pod uses (spec.resourceClaims, by template or by name) can be met
// on some node of the fleet, but on none its node affinity and taints
// admit. A claim no node can meet is the claim's own finding (claims[]).
func (c *workloadFacts) claimsFit(w *inventory.Workload, p *sched.Placement) map[string]any {
	for i, pc := range w.Template.Spec.ResourceClaims {
		r := object.Ref{Namespace: w.Ref.Namespace}
		switch {
		case pc.ResourceClaimTemplateName != nil:
			r.Kind, r.Name = "ResourceClaimTemplate", *pc.ResourceClaimTemplateName
		case pc.ResourceClaimName != nil:
			r.Kind, r.Name = "ResourceClaim", *pc.ResourceClaimName
		}
		cl, ok := c.dra.lookup(r)
		if !ok || !c.dra.known || !c.dra.fleet(cl.reqs).Fits {
			continue // not among the inputs, unjudged, or claims[]'s to say
		}
		if v := c.dra.admitted(p, cl.reqs); !v.Fits {
			return map[string]any{
				"fits":    false,
				"message": fmt.Sprintf("its claim %s can be met on the fleet, but not on the nodes its node affinity and tolerations admit: %s", r, v.Message),
				"field":   docval.Pointer(specField(w, "resourceClaims", i)),
			}
		}
	}
	return nil
}

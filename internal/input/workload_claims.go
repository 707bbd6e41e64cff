package input

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/dra"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// claimsFit is workloads[].claims_fit (DRV015): set only when a DRA claim
// the pod uses (spec.resourceClaims, by template or by name) can be met
// on some node of the fleet, but on none its node affinity and taints
// admit. A claim no node can meet is the claim's own finding (claims[]).
func (c *workloadFacts) claimsFit(w *inventory.Workload, p *sched.Placement) map[string]any {
	for i, pc := range w.Template.Spec.ResourceClaims {
		reqs, name, ok := c.claimRequests(w.Ref.Namespace, pc)
		if !ok {
			continue
		}
		fleet := c.draFleet()
		if !fleet.known || !fleet.all.Claim(reqs).Fits {
			continue // unjudged, or claims[]'s to say
		}
		if v := c.admittedJudge(p).Claim(reqs); !v.Fits {
			return map[string]any{
				"fits":    false,
				"message": fmt.Sprintf("its claim %s can be met on the fleet, but not on the nodes its node affinity and tolerations admit: %s", name, v.Message),
				"field":   pointer(specField(w, "resourceClaims", i)),
			}
		}
	}
	return nil
}

// claimRequests are the requests of the claim a pod's entry names, and
// its name; false when the inputs do not hold it.
func (c *workloadFacts) claimRequests(ns string, pc corev1.PodResourceClaim) ([]dra.Request, string, bool) {
	switch {
	case pc.ResourceClaimTemplateName != nil:
		for _, t := range c.claimTemplates {
			if t.Namespace == ns && t.Name == *pc.ResourceClaimTemplateName {
				return dra.Requests(t.Spec.Spec, []any{"spec", "spec"}), "ResourceClaimTemplate/" + ns + "/" + t.Name, true
			}
		}
	case pc.ResourceClaimName != nil:
		for _, cl := range c.claims {
			if cl.Namespace == ns && cl.Name == *pc.ResourceClaimName {
				return dra.Requests(cl.Spec, []any{"spec"}), "ResourceClaim/" + ns + "/" + cl.Name, true
			}
		}
	}
	return nil, "", false
}

// draFleet is every node's devices and a judge over all of them, made on
// first use: most runs use no claim.
type draFleet struct {
	byNode  map[string][]dra.Device
	classes map[string]dra.Class
	from    string
	known   bool
	all     *dra.Judge
}

func (c *workloadFacts) draFleet() *draFleet {
	if c.dra != nil {
		return c.dra
	}
	byNode, from, known := nodeDevices(c.inv, c.facts)
	classes := dra.Classes(c.inv.DeviceClasses)
	c.dra = &draFleet{byNode: byNode, classes: classes, from: from, known: known, all: dra.NewJudge(classes, byNode, from)}
	return c.dra
}

// admittedJudge judges claims on the nodes a placement admits, once per
// placement.
func (c *workloadFacts) admittedJudge(p *sched.Placement) *dra.Judge {
	if j, ok := c.draJudges[p]; ok {
		return j
	}
	f := c.draFleet()
	byNode := map[string][]dra.Device{}
	for _, v := range p.Classes {
		if v.Admits() {
			for _, n := range v.Class.Nodes {
				byNode[n.Name] = f.byNode[n.Name]
			}
		}
	}
	j := dra.NewJudge(f.classes, byNode, f.from)
	c.draJudges[p] = j
	return j
}

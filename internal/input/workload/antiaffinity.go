package workload

import (
	"github.com/drvcheck/drvcheck/internal/input/docval"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// antiAffinity describes w's required podAntiAffinity on
// kubernetes.io/hostname against its own pods (DRV013): each replica then
// needs a node of its own, so at most `domains` replicas run, the distinct
// hostname labels among the nodes that pass every filter.
func (c *workloadFacts) antiAffinity(w *inventory.Workload, p *sched.Placement) map[string]any {
	i, self := sched.SelfAntiAffinity(w.Template, w.Ref.Namespace, c.nsLabels[w.Ref.Namespace], sched.HostnameKey)
	out := map[string]any{"self": self, "topology_key": sched.HostnameKey}
	if !self {
		return out
	}
	d := p.Domains(sched.HostnameKey)
	out["domains"] = d.Count
	out["unlimited"] = d.Unlimited
	out["field"] = docval.Pointer(specField(w, "affinity", "podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution", i))
	return out
}

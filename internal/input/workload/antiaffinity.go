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
	if !self {
		return c.once(antiKey{}, func() map[string]any {
			return map[string]any{"self": false, "topology_key": sched.HostnameKey}
		})
	}
	key := antiKey{p, docval.Pointer(specField(w, "affinity", "podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution", i))}
	return c.once(key, func() map[string]any {
		d := p.Domains(sched.HostnameKey)
		return map[string]any{"self": true, "topology_key": sched.HostnameKey, "domains": d.Count, "unlimited": d.Unlimited, "field": key.field}
	})
}

// antiKey is a self anti-affinity's placement and field; its zero value
// is no self anti-affinity.
type antiKey struct {
	p     *sched.Placement
	field string
}

package input

import (
	"github.com/drvcheck/drvcheck/internal/dra"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
)

// claimEntries are input.claims (DRV015): each ResourceClaimTemplate, and
// each ResourceClaim of a cluster not yet allocated, with whether some
// node has the devices its requests ask for. Live, the devices are the
// ResourceSlices'; from files, those NVIDIA's DRA driver would publish for
// each node, from its labels, and a GPU node whose labels say nothing of
// its GPUs leaves every claim unjudged.
func claimEntries(inv *inventory.Inventory, facts *nodefacts.Set) []any {
	out := []any{}
	if len(inv.ResourceClaimTemplates)+len(inv.ResourceClaims) == 0 {
		return out
	}
	devices, from, known := nodeDevices(inv, facts)
	j := dra.NewJudge(dra.Classes(inv.DeviceClasses), devices, from)
	entry := func(kind, ns, name string, reqs []dra.Request) map[string]any {
		v := dra.Verdict{Fits: true}
		if known {
			v = j.Claim(reqs)
		}
		return map[string]any{"object": ref(kind, ns, name), "fits": v.Fits, "message": v.Message, "field": pointer(v.Field)}
	}
	for _, t := range inv.ResourceClaimTemplates {
		out = append(out, entry("ResourceClaimTemplate", t.Namespace, t.Name, dra.Requests(t.Spec.Spec, []any{"spec", "spec"})))
	}
	for _, c := range inv.ResourceClaims {
		if c.Status.Allocation == nil {
			out = append(out, entry("ResourceClaim", c.Namespace, c.Name, dra.Requests(c.Spec, []any{"spec"})))
		}
	}
	return out
}

// nodeDevices are the devices each node publishes: live, its
// ResourceSlices'; from files, those NVIDIA's DRA driver would publish
// from its labels, and false when a GPU node's labels say nothing of its
// GPUs (nothing can then be said of a claim).
func nodeDevices(inv *inventory.Inventory, facts *nodefacts.Set) (map[string][]dra.Device, string, bool) {
	if inv.Live {
		return dra.FromResourceSlices(inv.ResourceSlices), dra.FromSlices, true
	}
	devices, known := map[string][]dra.Device{}, true
	for i, n := range inv.Nodes {
		d := dra.FromNodeLabels(n)
		devices[n.Name] = d
		if len(d) == 0 && facts.List()[i].GPU {
			known = false
		}
	}
	return devices, dra.FromLabels, known
}

package workload

import (
	"github.com/drvcheck/drvcheck/internal/dra"
	"github.com/drvcheck/drvcheck/internal/input/docval"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// claimEntries are input.claims (DRV015): each ResourceClaimTemplate, and
// each ResourceClaim of a cluster not yet allocated, with whether some
// node has the devices its requests ask for.
func claimEntries(d *draFleet) []any {
	out := []any{}
	for _, c := range d.listed() {
		v := d.fleet(c.reqs)
		out = append(out, map[string]any{"object": docval.Ref(c.ref.Kind, c.ref.Namespace, c.ref.Name), "fits": v.Fits, "message": v.Message, "field": docval.Pointer(v.Field)})
	}
	return out
}

// draFleet is what the run knows of DRA, made on first use (most runs hold
// no claim) and shared by claims[] and workloads[].claims_fit, so that
// every device is derived and every selector evaluated once: the claims by
// name, each node's devices, and judges over the fleet and over the nodes
// a placement admits. Live, the devices are the ResourceSlices'; from
// files, those NVIDIA's DRA driver would publish for each node, from its
// labels, and a GPU node whose labels say nothing of its GPUs leaves every
// claim unjudged.
type draFleet struct {
	inv   *inventory.Inventory
	facts *nodefacts.Set

	made    bool
	claims  map[object.Ref]claim
	byNode  map[string][]dra.Device
	classes map[string]dra.Class
	from    string
	known   bool
	all     *dra.Judge
	judges  map[*sched.Placement]*dra.Judge
}

// claim is a template's or an unallocated claim's requests.
type claim struct {
	ref  object.Ref
	reqs []dra.Request
}

func newDRAFleet(inv *inventory.Inventory, facts *nodefacts.Set) *draFleet {
	return &draFleet{inv: inv, facts: facts}
}

// make reads the claims and devices the first time it is asked.
func (d *draFleet) make() {
	if d.made {
		return
	}
	d.made = true
	d.claims = map[object.Ref]claim{}
	for _, t := range d.inv.ResourceClaimTemplates {
		r := object.Ref{Kind: "ResourceClaimTemplate", Namespace: t.Namespace, Name: t.Name}
		d.claims[r] = claim{r, dra.Requests(t.Spec.Spec, []any{"spec", "spec"})}
	}
	for _, c := range d.inv.ResourceClaims {
		if c.Status.Allocation == nil {
			r := object.Ref{Kind: "ResourceClaim", Namespace: c.Namespace, Name: c.Name}
			d.claims[r] = claim{r, dra.Requests(c.Spec, []any{"spec"})}
		}
	}
	if len(d.claims) == 0 {
		return // no device is read for no claim
	}
	d.byNode, d.from, d.known = nodeDevices(d.inv, d.facts)
	d.classes = dra.Classes(d.inv.DeviceClasses)
	d.all = dra.NewJudge(d.classes, d.byNode, d.from)
	d.judges = map[*sched.Placement]*dra.Judge{}
}

// listed are the claims in read order: templates, then claims.
func (d *draFleet) listed() []claim {
	d.make()
	var out []claim
	for _, t := range d.inv.ResourceClaimTemplates {
		out = append(out, d.claims[object.Ref{Kind: "ResourceClaimTemplate", Namespace: t.Namespace, Name: t.Name}])
	}
	for _, c := range d.inv.ResourceClaims {
		if x, ok := d.claims[object.Ref{Kind: "ResourceClaim", Namespace: c.Namespace, Name: c.Name}]; ok {
			out = append(out, x)
		}
	}
	return out
}

// lookup is the claim of that kind and name, if the inputs hold it.
func (d *draFleet) lookup(r object.Ref) (claim, bool) {
	d.make()
	c, ok := d.claims[r]
	return c, ok
}

// fleet judges requests against every node; fits when nothing is known.
func (d *draFleet) fleet(reqs []dra.Request) dra.Verdict {
	d.make()
	if !d.known {
		return dra.Verdict{Fits: true}
	}
	return d.all.Claim(reqs)
}

// admitted judges requests on the nodes a placement admits, with one
// judge per placement.
func (d *draFleet) admitted(p *sched.Placement, reqs []dra.Request) dra.Verdict {
	d.make()
	j, ok := d.judges[p]
	if !ok {
		byNode := map[string][]dra.Device{}
		for _, v := range p.Classes {
			if v.Admits() {
				for _, n := range v.Class.Nodes {
					byNode[n.Name] = d.byNode[n.Name]
				}
			}
		}
		j = dra.NewJudge(d.classes, byNode, d.from)
		d.judges[p] = j
	}
	return j.Claim(reqs)
}

// nodeDevices are the devices each node publishes: live, its
// ResourceSlices'; from files, those NVIDIA's DRA driver would publish
// from its labels, and false when a GPU node's labels say nothing of its
// GPUs (nothing can then be said of a claim).
func nodeDevices(inv *inventory.Inventory, facts *nodefacts.Set) (map[string][]dra.Device, string, bool) {
	devices := inv.NodeDevices()
	if inv.Live {
		return devices, dra.FromSlices, true
	}
	for i, n := range inv.Nodes {
		if len(devices[n.Name]) == 0 && facts.List()[i].GPU {
			return devices, dra.FromLabels, false
		}
	}
	return devices, dra.FromLabels, true
}

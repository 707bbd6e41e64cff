package inventory

import (
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/dra"
	"github.com/drvcheck/drvcheck/internal/gpures"
)

// extended is ExtendedOffers, derived once: the rules' document and the
// drain model, which a run builds at the same time, both read it. The
// field is made on first use under extendedMu, so that an Inventory stays
// a plain value to copy (WithNodes).
type extended struct {
	offers map[string]map[corev1.ResourceName]int64
}

var extendedMu sync.Mutex

// ExtendedOffers are, by node name, the GPU resources a DeviceClass among
// the inputs maps as its extendedResourceName and how many devices of the
// class the node holds (dra.Extended.Offers): what the scheduler's DRA path
// gives a pod that asks for the resource on a node whose allocatable has
// none. The devices are a cluster's ResourceSlices, or from files those
// NVIDIA's DRA driver would publish from the nodes' labels. Nil when no
// class maps a GPU resource, as in most fleets.
func (inv *Inventory) ExtendedOffers() map[string]map[corev1.ResourceName]int64 {
	extendedMu.Lock()
	defer extendedMu.Unlock()
	if inv.extended == nil {
		inv.extended = &extended{}
		if mapped := dra.ExtendedClasses(inv.DeviceClasses, gpures.IsGPU); mapped != nil {
			inv.extended.offers = mapped.Offers(inv.NodeDevices())
		}
	}
	return inv.extended.offers
}

// WithNodes is a copy of inv with other nodes (relabelled ones, for an
// upgrade's judgement), whose derived facts are derived anew.
func (inv *Inventory) WithNodes(nodes []*corev1.Node) *Inventory {
	c := *inv
	c.Nodes = nodes
	c.extended = nil
	return &c
}

// NodeDevices are the devices each node publishes, by node name: live its
// ResourceSlices'; from files those NVIDIA's DRA driver would publish from
// its labels (none for a node GFD has not labelled).
func (inv *Inventory) NodeDevices() map[string][]dra.Device {
	if inv.Live {
		return dra.FromResourceSlices(inv.ResourceSlices)
	}
	out := make(map[string][]dra.Device, len(inv.Nodes))
	for _, n := range inv.Nodes {
		out[n.Name] = dra.FromNodeLabels(n)
	}
	return out
}

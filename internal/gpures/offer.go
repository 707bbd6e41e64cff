package gpures

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Where an offer was read from.
const (
	FromAllocatable = "allocatable" // status.allocatable (or capacity)
	FromLabels      = "labels"      // GPU Feature Discovery's labels
	FromDRA         = "dra"         // a DRA driver's devices alone (WithExtended)
)

// Offer is what a node offers of the GPU resources: each resource's count,
// and where that was read. From is "" when neither the node's status nor
// its labels say (a manifest written by hand): nothing is known of it.
type Offer struct {
	Resources map[corev1.ResourceName]int64
	From      string
	// Product is GFD's nvidia.com/gpu.product of the node, its MIG and
	// sharing suffixes off: which MIG profiles it could offer (mig.go).
	Product string
	// OneEach are the resources a container may ask no more than one of
	// (the device plugin fails more at admission), and Why says whose
	// config says so (sharing.go).
	OneEach []corev1.ResourceName
	Why     string
}

// Refuses is the first resource of OneEach that a container asks more
// than one of (most: the most one container asks of each).
func (o Offer) Refuses(most []Request) (corev1.ResourceName, bool) {
	for _, r := range most {
		if r.Value > 1 && slices.Contains(o.OneEach, r.Name) {
			return r.Name, true
		}
	}
	return "", false
}

// Known says whether the offer was read from somewhere.
func (o Offer) Known() bool { return o.From != "" }

// Holds says whether the offer has room for every request, on an empty
// node, and if not, the first resource it lacks.
func (o Offer) Holds(reqs []Request) (bool, corev1.ResourceName) {
	for _, r := range reqs {
		if o.Resources[r.Name] < r.Value {
			return false, r.Name
		}
	}
	return true, ""
}

// Key is the offer written as one string: nodes of one key offer the
// same, so a fleet is judged once per distinct offer.
func (o Offer) Key() string {
	var b strings.Builder
	b.WriteString(o.From + "\x00" + o.Product)
	for _, name := range slices.Sorted(maps.Keys(o.Resources)) {
		b.WriteString("\x00" + string(name) + "=" + strconv.FormatInt(o.Resources[name], 10))
	}
	b.WriteString(oneEachKey(o.OneEach, o.Why))
	return b.String()
}

// OfferOf is what n offers: its status when it has one, since the device
// plugin's own count (allocatable) is what the scheduler compares with;
// else what GPU Feature Discovery's labels say the device plugin
// advertises (labels.go), its nvidia.com/mig.config read in mig when the
// inputs hold a custom mig-parted config (nil without).
func OfferOf(n *corev1.Node, mig *MIGConfigs) Offer {
	if list := Allocatable(n); len(list) > 0 {
		o := Offer{Resources: map[corev1.ResourceName]int64{}, From: FromAllocatable, Product: product(n.Labels)}
		for name, q := range list {
			if IsGPU(name) {
				o.Resources[name] = q.Value()
			}
		}
		return o
	}
	o := fromLabels(n.Labels, mig)
	o.Product = product(n.Labels)
	return o
}

// WithExtended is o with the GPU resources DRA gives the node through a
// DeviceClass's extendedResourceName (inventory.Inventory.ExtendedOffers): where o
// has none of one, the scheduler leaves it to the DRA plugin, which
// allocates that many of the class's devices (noderesources/fit.go:
// 269-291 at v1.37.2). o is not changed.
func (o Offer) WithExtended(ext map[corev1.ResourceName]int64) Offer {
	if len(ext) == 0 {
		return o
	}
	out := o
	out.Resources = maps.Clone(o.Resources)
	if out.Resources == nil {
		out.Resources = map[corev1.ResourceName]int64{}
	}
	for name, n := range ext {
		if out.Resources[name] == 0 {
			out.Resources[name] = n
		}
	}
	if out.From == "" {
		out.From = FromDRA
	}
	return out
}

// product is the GPU model GFD names, its suffixes off.
func product(labels map[string]string) string {
	p := strings.TrimSuffix(labels[gpuPrefix+productSuffix], sharedProduct)
	if i := strings.Index(p, "-MIG-"); i >= 0 {
		p = p[:i]
	}
	return p
}

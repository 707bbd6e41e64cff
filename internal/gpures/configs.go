package gpures

import corev1 "k8s.io/api/core/v1"

// Configs are the GPU Operator's configs of the device plugin and of the
// MIG manager that the inputs hold: the ConfigMaps a ClusterPolicy names.
// A nil Configs, or a nil field, is none.
type Configs struct {
	Sharing *Sharing
	MIG     *MIGConfigs
}

// Offer is what n offers under the configs (OfferOf), with the resources
// a container may ask no more than one of (Sharing.OneEach).
func (c *Configs) Offer(n *corev1.Node) Offer {
	if c == nil {
		return OfferOf(n, nil)
	}
	o := OfferOf(n, c.MIG)
	o.OneEach, o.Why = c.Sharing.OneEach(n.Labels)
	return o
}

// MIGConfigs is the custom mig-parted config, or nil.
func (c *Configs) MIGConfigs() *MIGConfigs {
	if c == nil {
		return nil
	}
	return c.MIG
}

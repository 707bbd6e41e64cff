package input

import (
	"github.com/drvcheck/drvcheck/internal/gpures"
	"github.com/drvcheck/drvcheck/internal/inventory"
)

// SharingOf is the device plugin's configs of the ClusterPolicy among
// the inputs (spec.devicePlugin.config), read from the ConfigMap of that
// name the inputs hold; nil when there is none (a live cluster's
// ConfigMaps are not read). A key that is no device plugin config is an
// error naming the ConfigMap: the plugin would not start on its nodes.
func SharingOf(inv *inventory.Inventory) (*gpures.Sharing, error) {
	for _, cp := range inv.ClusterPolicies {
		name, def := cp.DevicePluginConfig()
		if name == "" {
			continue
		}
		for _, cm := range inv.ConfigMaps {
			if cm.Name == name {
				return gpures.NewSharing(cm, def)
			}
		}
	}
	return nil, nil
}

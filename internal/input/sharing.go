package input

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/gpures"
	"github.com/drvcheck/drvcheck/internal/inventory"
)

// ConfigsOf is the GPU Operator's configs of the device plugin
// (spec.devicePlugin.config) and of the MIG manager
// (spec.migManager.config) that the ClusterPolicies among the inputs name,
// read from the ConfigMaps of those names the inputs hold; nil when there
// are none (live, cluster.Client gets them by name). A ConfigMap that
// is no such config is an error naming it: the device plugin would not
// start on its nodes, or the MIG manager would fail on them.
func ConfigsOf(inv *inventory.Inventory) (*gpures.Configs, error) {
	var c gpures.Configs
	for _, cp := range inv.ClusterPolicies {
		if name, def := cp.DevicePluginConfig(); name != "" && c.Sharing == nil {
			if cm := configMap(inv, name); cm != nil {
				s, err := gpures.NewSharing(cm, def)
				if err != nil {
					return nil, err
				}
				c.Sharing = s
			}
		}
		if name := cp.MIGManagerConfig(); name != "" && c.MIG == nil {
			if cm := configMap(inv, name); cm != nil {
				m, err := gpures.NewMIGConfigs(cm)
				if err != nil {
					return nil, err
				}
				c.MIG = m
			}
		}
	}
	if c.Sharing == nil && c.MIG == nil {
		return nil, nil
	}
	return &c, nil
}

// configMap is the ConfigMap of that name among the inputs, or nil. The
// operator reads it in its own namespace; a repository's ConfigMap is
// taken by name, as a file may leave its namespace to kustomize or Helm.
func configMap(inv *inventory.Inventory, name string) *corev1.ConfigMap {
	for _, cm := range inv.ConfigMaps {
		if cm.Name == name {
			return cm
		}
	}
	return nil
}

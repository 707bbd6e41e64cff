package input

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/gpures"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/operator"
)

// ConfigsOf is the GPU Operator's configs of the device plugin
// (spec.devicePlugin.config) and of the MIG manager
// (spec.migManager.config) that the ClusterPolicies among the inputs name,
// read from the ConfigMaps of those names the inputs hold (live,
// cluster.Client gets them by name); nil when none is named. A ConfigMap
// that is no such config is an error naming it: the device plugin would
// not start on its nodes, or the MIG manager would fail on them. A name
// the inputs hold no ConfigMap of is a note: the device plugin's configs
// are then not judged, and the MIG manager's are unknown (its custom
// configs replace the operator's, so neither can be said).
func ConfigsOf(inv *inventory.Inventory) (*gpures.Configs, []string, error) {
	var c gpures.Configs
	var notes []string
	named := false
	for _, cp := range inv.ClusterPolicies {
		dp, def, err := cp.DevicePluginConfig()
		if err != nil {
			return nil, nil, err
		}
		if dp != "" && c.Sharing == nil {
			named = true
			if cm := configMap(inv, dp); cm != nil {
				if c.Sharing, err = gpures.NewSharing(cm, def); err != nil {
					return nil, nil, err
				}
			} else {
				notes = append(notes, missingNote(cp, dp, "spec.devicePlugin.config.name", "the device plugin's sharing configs are not judged"))
			}
		}
		mig, err := cp.MIGManagerConfig()
		if err != nil {
			return nil, nil, err
		}
		if mig != "" && c.MIG == nil {
			named = true
			if cm := configMap(inv, mig); cm != nil {
				if c.MIG, err = gpures.NewMIGConfigs(cm); err != nil {
					return nil, nil, err
				}
			} else {
				c.MIG = gpures.UnknownMIGConfigs("ConfigMap " + mig)
				notes = append(notes, missingNote(cp, mig, "spec.migManager.config.name", "the MIG layouts its configs make are unknown"))
			}
		}
	}
	if !named {
		return nil, nil, nil
	}
	if inv.Live {
		notes = nil // the cluster read said why it has none (internal/cluster/configs.go)
	}
	return &c, notes, nil
}

func missingNote(cp *operator.ClusterPolicy, name, field, what string) string {
	return fmt.Sprintf("ClusterPolicy/%s names ConfigMap %s (%s), which the inputs do not hold: %s; give it among the inputs", cp.Name, name, field, what)
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

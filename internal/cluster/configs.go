package cluster

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/drvcheck/drvcheck/internal/inventory"
)

// ConfigMaps, as RBAC names them: never listed, only the GPU Operator's
// configs got by name (operatorConfigs).
var ConfigMaps = Kind{Resource: "configmaps", Version: "v1", ObjectKind: "ConfigMap"}

// DefaultOperatorNamespace is where the GPU Operator's chart installs it,
// taken when no DaemonSet of a ClusterPolicy's is read.
const DefaultOperatorNamespace = "gpu-operator"

// operatorConfigs gets the ConfigMaps the ClusterPolicies read name, the
// device plugin's configs (spec.devicePlugin.config.name) and the MIG
// manager's custom config (spec.migManager.config.name), from the
// operator's namespace, as the operator mounts them there
// (controllers/object_controls.go:2070-2091, 2893-2894 at a22dbf671).
// ConfigMaps are not listed: these alone are read, by name (the Role
// drvcheck-operator-configs of deploy/operator-configs-rbac.yaml). One the
// run may not get, or that is missing, is a note: DRV015 then judges
// without it.
func (c *Client) operatorConfigs(ctx context.Context, inv *inventory.Inventory) error {
	var names []string
	for _, cp := range inv.ClusterPolicies {
		// A name that is no string is the run's error (input.ConfigsOf).
		if name, _, err := cp.DevicePluginConfig(); err == nil && name != "" {
			names = append(names, name)
		}
		if name, err := cp.MIGManagerConfig(); err == nil && name != "" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	ns, guessed := operatorNamespace(inv)
	where := ""
	if guessed {
		where = ", taken in the chart's namespace as no DaemonSet of a ClusterPolicy's was read"
	}
	for _, name := range slices.Compact(names) {
		cm, err := c.cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
		switch {
		case err == nil:
			inv.ConfigMaps = append(inv.ConfigMaps, cm)
		case apierrors.IsNotFound(err):
			inv.Notes = append(inv.Notes, fmt.Sprintf("cluster %s: the ClusterPolicy names ConfigMap %s/%s, which does not exist%s: DRV015 judges without it", c.host, ns, name, where))
		case apierrors.IsForbidden(err):
			inv.Notes = append(inv.Notes, fmt.Sprintf("cluster %s: forbidden to get ConfigMap %s/%s%s (deploy/operator-configs-rbac.yaml's Role drvcheck-operator-configs grants it): DRV015 judges without the device plugin's and the MIG manager's configs", c.host, ns, name, where))
		default:
			return c.explain(err, "get", ConfigMaps)
		}
	}
	return nil
}

// operatorNamespace is the namespace of a DaemonSet a ClusterPolicy owns
// (the operator makes its operands in its own namespace), else the
// chart's default, guessed.
func operatorNamespace(inv *inventory.Inventory) (ns string, guessed bool) {
	for _, ds := range inv.DaemonSets {
		for _, ref := range ds.OwnerReferences {
			if ref.Kind == "ClusterPolicy" {
				return ds.Namespace, false
			}
		}
	}
	return DefaultOperatorNamespace, true
}

package inventory

import (
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/drvcheck/drvcheck/internal/load"
)

// A ConfigMap is read from files, and is no Kind of Kinds: a cluster's are
// not listed (deploy/rbac.yaml grants no read of them, as they hold what a
// reader has no need of; the two a ClusterPolicy names are got by name,
// internal/cluster/configs.go), and a repository may hold one
// ConfigMap more than once (a base and its overlay's output) without a
// conflict drvcheck should refuse. What reads them: the device plugin's
// sharing config and the MIG manager's custom config the ClusterPolicy
// names (gpures.Configs).
func isConfigMap(o *load.Object) bool { return o.Kind == "ConfigMap" && o.APIVersion == "v1" }

// decodeConfigMap is o as a ConfigMap, in its namespace; a field of the
// wrong type is named as the typed kinds' are.
func decodeConfigMap(o *load.Object) (*corev1.ConfigMap, error) {
	if o.Namespace == "" {
		o.Namespace = load.DefaultNamespace
	}
	cm := &corev1.ConfigMap{}
	if err := k8sruntime.DefaultUnstructuredConverter.FromUnstructured(o.Raw, cm); err != nil {
		if p, why := mismatch(o.Raw, reflect.TypeFor[corev1.ConfigMap](), nil); p != nil {
			return nil, fmt.Errorf("%s: %s: %s", atField(o, p), dotted(p), why)
		}
		return nil, fmt.Errorf("%s: %s", o.Where(), conversionError(err))
	}
	cm.Namespace = o.Namespace
	return cm, nil
}

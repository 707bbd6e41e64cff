package inventory

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/drvcheck/drvcheck/internal/load"
)

// kinds maps each kind drvcheck reads to its API group and served version,
// and to how a decoded object is added to the inventory.
var kinds = map[string]struct {
	group, version string
	add            func(inv *Inventory, o *load.Object) error
}{
	"Node":      {"", "v1", decodeInto(func(inv *Inventory, x *corev1.Node) { inv.Nodes = append(inv.Nodes, x) })},
	"Pod":       {"", "v1", decodeInto(func(inv *Inventory, x *corev1.Pod) { inv.Pods = append(inv.Pods, x) })},
	"Namespace": {"", "v1", decodeInto(func(inv *Inventory, x *corev1.Namespace) { inv.Namespaces = append(inv.Namespaces, x) })},
	"ReplicationController": {"", "v1", decodeInto(func(inv *Inventory, x *corev1.ReplicationController) {
		inv.ReplicationControllers = append(inv.ReplicationControllers, x)
	})},
	"Deployment":          {"apps", "v1", decodeInto(func(inv *Inventory, x *appsv1.Deployment) { inv.Deployments = append(inv.Deployments, x) })},
	"ReplicaSet":          {"apps", "v1", decodeInto(func(inv *Inventory, x *appsv1.ReplicaSet) { inv.ReplicaSets = append(inv.ReplicaSets, x) })},
	"StatefulSet":         {"apps", "v1", decodeInto(func(inv *Inventory, x *appsv1.StatefulSet) { inv.StatefulSets = append(inv.StatefulSets, x) })},
	"DaemonSet":           {"apps", "v1", decodeInto(func(inv *Inventory, x *appsv1.DaemonSet) { inv.DaemonSets = append(inv.DaemonSets, x) })},
	"Job":                 {"batch", "v1", decodeInto(func(inv *Inventory, x *batchv1.Job) { inv.Jobs = append(inv.Jobs, x) })},
	"CronJob":             {"batch", "v1", decodeInto(func(inv *Inventory, x *batchv1.CronJob) { inv.CronJobs = append(inv.CronJobs, x) })},
	"PodDisruptionBudget": {"policy", "v1", decodeInto(func(inv *Inventory, x *policyv1.PodDisruptionBudget) { inv.PDBs = append(inv.PDBs, x) })},
}

// FromObjects decodes loaded manifests. Kinds no rule uses, and kinds of
// other API groups that share a name (a CRD called Deployment), are counted
// and kept out of the way. A kind in its own group at a version Kubernetes no
// longer serves, a field of the wrong type, or the same object twice is an
// error naming the object and where it was read.
//
// With keepRaw, every object stays available as read (Raw); otherwise the
// manifests are dropped once decoded, which halves the memory of a large run.
func FromObjects(objs []*load.Object, keepRaw bool) (*Inventory, error) {
	inv := &Inventory{Objects: len(objs)}
	for _, o := range objs {
		if keepRaw {
			inv.raw = append(inv.raw, o.Raw)
		}
		err := inv.decode(o)
		if !keepRaw {
			o.Raw = nil
		}
		if err != nil {
			return nil, err
		}
	}
	return inv, nil
}

func (inv *Inventory) decode(o *load.Object) error {
	k, known := kinds[o.Kind]
	if !known {
		return nil
	}
	group, version := splitAPIVersion(o.APIVersion)
	if group != k.group {
		return nil
	}
	if o.Namespace == "" && o.Kind != "Node" && o.Kind != "Namespace" {
		o.Namespace = load.DefaultNamespace
	}
	if version != k.version {
		return fmt.Errorf("%s: apiVersion %s is not served by current Kubernetes; use %s",
			o.Where(), o.APIVersion, joinAPIVersion(k.group, k.version))
	}
	if prev := inv.Origin(o.Ref()); prev != nil {
		return fmt.Errorf("%s: defined twice, also at %s:%d", o.Where(), prev.Source.Name, prev.Line)
	}
	if err := k.add(inv, o); err != nil {
		return err
	}
	inv.SetOrigin(o)
	return nil
}

func decodeInto[T any](add func(*Inventory, *T)) func(*Inventory, *load.Object) error {
	return func(inv *Inventory, o *load.Object) error {
		x := new(T)
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Raw, x); err != nil {
			return fmt.Errorf("%s: %s", o.Where(), conversionError(err))
		}
		if m, ok := any(x).(metav1.Object); ok && o.Namespace != "" {
			m.SetNamespace(o.Namespace)
		}
		add(inv, x)
		return nil
	}
}

// conversionError keeps the converter's first line, which names the field.
func conversionError(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

func splitAPIVersion(av string) (group, version string) {
	if g, v, ok := strings.Cut(av, "/"); ok {
		return g, v
	}
	return "", av
}

func joinAPIVersion(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}

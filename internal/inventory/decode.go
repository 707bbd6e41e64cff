package inventory

import (
	"fmt"
	"reflect"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/drvcheck/drvcheck/internal/load"
	"github.com/drvcheck/drvcheck/internal/operator"
)

// kind is how one kind drvcheck reads is recognised, decoded and kept.
type kind struct {
	group, version string
	typ            reflect.Type // the API type, e.g. corev1.Node
	decode         func(raw map[string]any) (metav1.Object, error)
	add            func(inv *Inventory, x metav1.Object)
}

func kindOf[T any, P interface {
	*T
	metav1.Object
}](group, version string, add func(*Inventory, P)) kind {
	return kind{
		group: group, version: version, typ: reflect.TypeFor[T](),
		decode: func(raw map[string]any) (metav1.Object, error) {
			x := P(new(T))
			return x, k8sruntime.DefaultUnstructuredConverter.FromUnstructured(raw, x)
		},
		add: func(inv *Inventory, x metav1.Object) { add(inv, x.(P)) },
	}
}

var kinds = map[string]kind{
	"Node":      kindOf("", "v1", func(inv *Inventory, x *corev1.Node) { inv.Nodes = append(inv.Nodes, x) }),
	"Pod":       kindOf("", "v1", func(inv *Inventory, x *corev1.Pod) { inv.Pods = append(inv.Pods, x) }),
	"Namespace": kindOf("", "v1", func(inv *Inventory, x *corev1.Namespace) { inv.Namespaces = append(inv.Namespaces, x) }),
	"ReplicationController": kindOf("", "v1", func(inv *Inventory, x *corev1.ReplicationController) {
		inv.ReplicationControllers = append(inv.ReplicationControllers, x)
	}),
	"Deployment":          kindOf("apps", "v1", func(inv *Inventory, x *appsv1.Deployment) { inv.Deployments = append(inv.Deployments, x) }),
	"ReplicaSet":          kindOf("apps", "v1", func(inv *Inventory, x *appsv1.ReplicaSet) { inv.ReplicaSets = append(inv.ReplicaSets, x) }),
	"StatefulSet":         kindOf("apps", "v1", func(inv *Inventory, x *appsv1.StatefulSet) { inv.StatefulSets = append(inv.StatefulSets, x) }),
	"DaemonSet":           kindOf("apps", "v1", func(inv *Inventory, x *appsv1.DaemonSet) { inv.DaemonSets = append(inv.DaemonSets, x) }),
	"Job":                 kindOf("batch", "v1", func(inv *Inventory, x *batchv1.Job) { inv.Jobs = append(inv.Jobs, x) }),
	"CronJob":             kindOf("batch", "v1", func(inv *Inventory, x *batchv1.CronJob) { inv.CronJobs = append(inv.CronJobs, x) }),
	"PodDisruptionBudget": kindOf("policy", "v1", func(inv *Inventory, x *policyv1.PodDisruptionBudget) { inv.PDBs = append(inv.PDBs, x) }),
	// The GPU Operator's configuration (internal/operator), cluster-scoped.
	"ClusterPolicy": kindOf(operator.Group, operator.ClusterPolicyVersion, func(inv *Inventory, x *operator.ClusterPolicy) {
		inv.ClusterPolicies = append(inv.ClusterPolicies, x)
	}),
	"NVIDIADriver": kindOf(operator.Group, operator.NVIDIADriverVersion, func(inv *Inventory, x *operator.NVIDIADriver) {
		inv.NVIDIADrivers = append(inv.NVIDIADrivers, x)
	}),
}

// FromObjects decodes loaded manifests and builds the inventory; see
// Decoder and FromDecoded, which do the same in two steps.
func FromObjects(objs []*load.Object, keepRaw bool) (*Inventory, error) {
	each := Decoder(keepRaw)
	for _, o := range objs {
		if err := each(o); err != nil {
			return nil, err
		}
	}
	return FromDecoded(objs, keepRaw)
}

// Decoder returns the step that decodes one loaded manifest into its API
// type (Object.Decoded), for load.Options.Each, so that it runs on the
// loader's workers. Kinds no rule uses, and kinds of other API groups that
// share a name (a CRD called Deployment), are left undecoded. A kind in its
// own group at a version Kubernetes no longer serves, or a field of the
// wrong type, is an error naming the object and where it was read.
//
// Without keepRaw the manifest is dropped once decoded: the plain values
// take as much memory as the typed objects, and only custom rules read
// them (input.objects).
func Decoder(keepRaw bool) func(*load.Object) error {
	return func(o *load.Object) error {
		x, err := decode(o)
		if err != nil {
			return err
		}
		if x != nil {
			o.Decoded = x
		}
		if !keepRaw {
			o.Raw = nil
		}
		return nil
	}
}

// FromDecoded builds the inventory from objects Decoder has seen, in read
// order. The same object twice is an error naming both places.
func FromDecoded(objs []*load.Object, keepRaw bool) (*Inventory, error) {
	inv := &Inventory{Objects: len(objs)}
	for _, o := range objs {
		if keepRaw {
			inv.raw = append(inv.raw, o.Raw)
		}
		if c, ok := o.Decoded.(*customObject); ok {
			if prev := inv.Origin(o.Ref()); prev != nil {
				return nil, fmt.Errorf("%s: defined twice, also at %s:%d", o.Where(), prev.Source.Name, prev.Line)
			}
			inv.Custom = append(inv.Custom, c)
			o.Decoded = nil
			inv.SetOrigin(o)
			continue
		}
		x, ok := o.Decoded.(metav1.Object)
		if !ok {
			if why := unreadWhy(o); why != "" {
				inv.addUnread(o, why)
			}
			continue
		}
		if prev := inv.Origin(o.Ref()); prev != nil {
			return nil, fmt.Errorf("%s: defined twice, also at %s:%d", o.Where(), prev.Source.Name, prev.Line)
		}
		kinds[o.Kind].add(inv, x)
		o.Decoded = nil // the inventory holds it now
		inv.SetOrigin(o)
	}
	return inv, nil
}

// decode returns nil, nil for objects no rule reads; a custom resource
// with pod templates decodes to a *customObject.
func decode(o *load.Object) (any, error) {
	group, version := splitAPIVersion(o.APIVersion)
	k, known := kinds[o.Kind]
	if !known || group != k.group {
		return decodeCustomObject(o, group)
	}
	if o.Namespace == "" && !load.ClusterScoped[o.Kind] {
		o.Namespace = load.DefaultNamespace
	}
	if version != k.version {
		return nil, fmt.Errorf("%s: apiVersion %s is not served by current Kubernetes; use %s",
			o.Where(), o.APIVersion, joinAPIVersion(k.group, k.version))
	}
	x, err := k.decode(o.Raw)
	if err != nil {
		if p, why := mismatch(o.Raw, k.typ, nil); p != nil {
			return nil, fmt.Errorf("%s: %s: %s", atField(o, p), dotted(p), why)
		}
		return nil, fmt.Errorf("%s: %s", o.Where(), conversionError(err))
	}
	if o.Wide() {
		if p := overflow(o.Raw, k.typ, nil); p != nil {
			return nil, fmt.Errorf("%s: %s: %v does not fit the field's 32 bits", atField(o, p), dotted(p), load.At(o.Raw, p...))
		}
	}
	if o.Namespace != "" {
		x.SetNamespace(o.Namespace)
	}
	if errs := validate(x); len(errs) > 0 {
		return nil, fmt.Errorf("%s: %s: the API server refuses it", atField(o, fieldPath(errs[0].Field)), errs[0].Error())
	}
	return x, nil
}

// atField names the object and the line of the field at path.
func atField(o *load.Object, path []any) string {
	if o.Source == nil {
		return o.Ref().String()
	}
	return fmt.Sprintf("%s (%s:%d)", o.Ref(), o.Source.Name, o.FieldLine(path))
}

// dotted writes a path as the API server does: spec.template.containers[0].
func dotted(path []any) string {
	var b strings.Builder
	for _, p := range path {
		if i, ok := p.(int); ok {
			fmt.Fprintf(&b, "[%d]", i)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		fmt.Fprint(&b, p)
	}
	return b.String()
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

package inventory

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
)

// typed is how a kind with a Go API type is decoded and kept: where its
// objects go in the Inventory, and where their pod templates are.
type typed struct {
	typ       reflect.Type // the API type, e.g. corev1.Node
	decode    func(raw map[string]any) (metav1.Object, error)
	add       func(inv *Inventory, x metav1.Object)
	objects   func(inv *Inventory) []metav1.Object
	templates func(x metav1.Object) []podTemplate // nil for kinds that make no pods
}

// podTemplate is one pod template of a typed object.
type podTemplate struct {
	template  *corev1.PodTemplateSpec
	path      []any  // where its pod spec sits in the manifest
	count     *int32 // how many pods it makes; nil is 1
	countPath []any  // where count sits
	daemon    bool   // one pod per node it may run on
}

var (
	podSpecPath         = []any{"spec"}
	templateSpecPath    = []any{"spec", "template", "spec"}
	cronSpecPath        = []any{"spec", "jobTemplate", "spec", "template", "spec"}
	replicasPath        = []any{"spec", "replicas"}
	parallelismPath     = []any{"spec", "parallelism"}
	cronParallelismPath = []any{"spec", "jobTemplate", "spec", "parallelism"}
)

// typedOf binds an API type to its slice of the Inventory and, for
// workloads, to its pod templates.
func typedOf[T any, P interface {
	*T
	metav1.Object
}](slot func(*Inventory) *[]P, templates func(P) []podTemplate) *typed {
	t := &typed{
		typ: reflect.TypeFor[T](),
		decode: func(raw map[string]any) (metav1.Object, error) {
			x := P(new(T))
			err := k8sruntime.DefaultUnstructuredConverter.FromUnstructured(raw, x)
			if k, ok := any(x).(specKeeper); ok && err == nil {
				spec, _ := raw["spec"].(map[string]any)
				k.KeepSpec(spec)
			}
			return x, err
		},
		add: func(inv *Inventory, x metav1.Object) {
			s := slot(inv)
			*s = append(*s, x.(P))
		},
		objects: func(inv *Inventory) []metav1.Object {
			s := *slot(inv)
			out := make([]metav1.Object, len(s))
			for i, x := range s {
				out[i] = x
			}
			return out
		},
	}
	if templates != nil {
		t.templates = func(x metav1.Object) []podTemplate { return templates(x.(P)) }
	}
	return t
}

// specKeeper is a type that keeps its whole spec as read, besides the
// fields it types (the operator's objects: a change anywhere in them is
// judged by the field it touches).
type specKeeper interface{ KeepSpec(map[string]any) }

// objectMeta is the ObjectMeta every API type embeds.
func objectMeta(x metav1.Object) *metav1.ObjectMeta {
	return x.(interface{ GetObjectMeta() metav1.Object }).GetObjectMeta().(*metav1.ObjectMeta)
}

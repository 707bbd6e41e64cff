package inventory

import (
	"github.com/drvcheck/drvcheck/internal/object"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Meta is one typed object's name and metadata.
type Meta struct {
	Ref  object.Ref
	Meta *metav1.ObjectMeta
}

// Metas lists every typed object with its metadata: workloads (in the order
// of Workloads), then the other kinds of Kinds that rules report on (Nodes,
// PodDisruptionBudgets, Namespaces). Exceptions read annotations from it
// and reports list the objects that were checked.
func (inv *Inventory) Metas() []Meta {
	var out []Meta
	for _, w := range inv.Workloads() {
		out = append(out, Meta{Ref: w.Ref, Meta: w.Meta})
	}
	for _, k := range Kinds {
		if k.typed == nil || k.MakesPods() || k.Custom {
			continue
		}
		for _, x := range k.typed.objects(inv) {
			m := objectMeta(x)
			out = append(out, Meta{Ref: object.Ref{Kind: k.Name, Namespace: m.Namespace, Name: m.Name}, Meta: m})
		}
	}
	return out
}

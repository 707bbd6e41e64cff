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
// of Workloads), then Nodes, PodDisruptionBudgets and Namespaces. Exceptions
// read annotations from it and reports list the objects that were checked.
func (inv *Inventory) Metas() []Meta {
	var out []Meta
	for _, w := range inv.Workloads() {
		out = append(out, Meta{Ref: w.Ref, Meta: w.Meta})
	}
	for _, n := range inv.Nodes {
		out = append(out, Meta{Ref: object.Ref{Kind: "Node", Name: n.Name}, Meta: &n.ObjectMeta})
	}
	for _, p := range inv.PDBs {
		out = append(out, Meta{Ref: object.Ref{Kind: "PodDisruptionBudget", Namespace: p.Namespace, Name: p.Name}, Meta: &p.ObjectMeta})
	}
	for _, n := range inv.Namespaces {
		out = append(out, Meta{Ref: object.Ref{Kind: "Namespace", Name: n.Name}, Meta: &n.ObjectMeta})
	}
	return out
}

package inventory

import (
	"github.com/drvcheck/drvcheck/internal/object"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Workload is one pod template of anything that makes pods (the kinds of
// Kinds with Pods set): a bare Pod, a Deployment, a CronJob through its
// jobTemplate, a RayCluster's worker group.
type Workload struct {
	Ref         object.Ref
	Kind        *Kind              // its entry in Kinds
	Meta        *metav1.ObjectMeta // the workload's own metadata
	Template    *corev1.PodTemplateSpec
	Replicas    int32 // desired pods; 1 for a Pod; 0 for a DaemonSet (one per node)
	DaemonSet   bool
	SpecPath    []any // where the pod spec sits in the manifest, for field lines
	Controllers bool  // whether its pods have a controller (false for a bare Pod)
	// Owner is set for objects owned by another workload (a ReplicaSet of a
	// Deployment, a Job of a CronJob, a Pod of a ReplicaSet): its pods are
	// counted under the owner, not twice.
	Owner *metav1.OwnerReference
	// TemplateName says which pod template of the object this is, for
	// objects with more than one (a RayCluster's worker groups); Custom
	// marks a custom resource's template, whose pods are not modelled for
	// budgets, and Generic one found in a kind drvcheck does not know.
	TemplateName    string
	Custom, Generic bool
	// GangMin is how many of the object's pods must run together when it
	// says fewer than all (a Volcano Job's minAvailable); 0: all.
	GangMin int32
}

// Workloads lists every workload in a stable order: by kind as in Kinds,
// then as read; custom resources' templates last, as read.
func (inv *Inventory) Workloads() []*Workload {
	var out []*Workload
	for _, k := range Kinds {
		if k.typed == nil || k.typed.templates == nil {
			continue
		}
		for _, x := range k.typed.objects(inv) {
			m := objectMeta(x)
			for _, t := range k.typed.templates(x) {
				w := &Workload{
					Ref:         object.Ref{Kind: k.Name, Namespace: m.Namespace, Name: m.Name},
					Kind:        k,
					Meta:        m,
					Template:    t.template,
					Replicas:    Replicas(t.count),
					SpecPath:    t.path,
					Controllers: true,
					Owner:       metav1.GetControllerOfNoCopy(m),
				}
				switch {
				case t.daemon:
					w.Replicas, w.DaemonSet = 0, true
				case k.Name == "Pod":
					w.Controllers = w.Owner != nil
				}
				out = append(out, w)
			}
		}
	}
	for _, c := range inv.Custom {
		out = append(out, c.workloads...)
	}
	return out
}

// Budgets tells whether the file model holds the workload's pods.
func (w *Workload) Budgets() bool { return w.Kind != nil && w.Kind.Budgets }

package inventory

import (
	"github.com/drvcheck/drvcheck/internal/object"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Workload is anything that makes pods, seen through its pod template: a
// bare Pod, a Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob
// (through its jobTemplate) or ReplicationController.
type Workload struct {
	Ref         object.Ref
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
}

var (
	podSpecPath      = []any{"spec"}
	templateSpecPath = []any{"spec", "template", "spec"}
	cronSpecPath     = []any{"spec", "jobTemplate", "spec", "template", "spec"}
)

// Workloads lists every workload in a stable order: by kind as below, then
// as read.
func (inv *Inventory) Workloads() []*Workload {
	var out []*Workload
	add := func(kind string, m *metav1.ObjectMeta, t *corev1.PodTemplateSpec, replicas *int32, path []any) *Workload {
		w := &Workload{
			Ref:         object.Ref{Kind: kind, Namespace: m.Namespace, Name: m.Name},
			Meta:        m,
			Template:    t,
			Replicas:    Replicas(replicas),
			SpecPath:    path,
			Controllers: true,
			Owner:       metav1.GetControllerOfNoCopy(m),
		}
		out = append(out, w)
		return w
	}
	for _, p := range inv.Pods {
		w := add("Pod", &p.ObjectMeta, &corev1.PodTemplateSpec{ObjectMeta: p.ObjectMeta, Spec: p.Spec}, nil, podSpecPath)
		w.Controllers = w.Owner != nil
	}
	for _, d := range inv.Deployments {
		add("Deployment", &d.ObjectMeta, &d.Spec.Template, d.Spec.Replicas, templateSpecPath)
	}
	for _, r := range inv.ReplicaSets {
		add("ReplicaSet", &r.ObjectMeta, &r.Spec.Template, r.Spec.Replicas, templateSpecPath)
	}
	for _, s := range inv.StatefulSets {
		add("StatefulSet", &s.ObjectMeta, &s.Spec.Template, s.Spec.Replicas, templateSpecPath)
	}
	for _, d := range inv.DaemonSets {
		w := add("DaemonSet", &d.ObjectMeta, &d.Spec.Template, nil, templateSpecPath)
		w.Replicas, w.DaemonSet = 0, true
	}
	for _, j := range inv.Jobs {
		add("Job", &j.ObjectMeta, &j.Spec.Template, j.Spec.Parallelism, templateSpecPath)
	}
	for _, c := range inv.CronJobs {
		add("CronJob", &c.ObjectMeta, &c.Spec.JobTemplate.Spec.Template, c.Spec.JobTemplate.Spec.Parallelism, cronSpecPath)
	}
	for _, r := range inv.ReplicationControllers {
		if r.Spec.Template == nil {
			continue // no template, no pods
		}
		add("ReplicationController", &r.ObjectMeta, r.Spec.Template, r.Spec.Replicas, templateSpecPath)
	}
	for _, c := range inv.Custom {
		out = append(out, c.workloads...)
	}
	return out
}

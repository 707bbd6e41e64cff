package drain

import (
	"cmp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/object"
)

// filePods models the pods of workloads read from files, all Running and
// Ready: those of the kinds marked Budgets in inventory.Kinds (the
// contract's Deployments, ReplicaSets and StatefulSets with their
// replicas, and Pods; ReplicationControllers). DaemonSet pods are left out
// (a drain ignores them), as are Jobs' and CronJobs'. Each workload is one
// run of Count replicas until the Placer lands them one by one. A ReplicaSet
// or Pod whose controller was read too is counted under that controller,
// not twice. A Pod whose controller was not read counts as one replica of
// it. The DaemonSets whose pods use GPUs are noted (GPUDaemonSets).
func (m *Model) filePods(inv *inventory.Inventory) {
	all := inv.Workloads()
	read := map[object.Ref]bool{}
	for _, w := range all {
		read[w.Ref] = true
	}
	var ws []*inventory.Workload
	for _, w := range all {
		if w.DaemonSet && GPUPod(&w.Template.Spec) {
			m.GPUDaemonSets = append(m.GPUDaemonSets, w)
		}
		if w.Budgets() && w.Replicas > 0 && (w.Owner == nil || !read[ownerRef(w)]) {
			ws = append(ws, w)
		}
	}
	slices.SortStableFunc(ws, func(a, b *inventory.Workload) int {
		return cmp.Or(a.Kind.Index()-b.Kind.Index(),
			strings.Compare(a.Ref.Namespace, b.Ref.Namespace), strings.Compare(a.Ref.Name, b.Ref.Name))
	})
	orphans := map[string]int32{} // pods per controller that was not read
	var pod filed
	for _, w := range ws {
		run := &Pod{
			Namespace: w.Ref.Namespace, Name: w.Ref.Name, Count: w.Replicas, Labels: w.Template.Labels, Spec: &w.Template.Spec,
			Workload: w.Ref, SpecPath: w.SpecPath, Phase: corev1.PodRunning, Ready: true, Verdict: Filter(pod.of(w)),
		}
		switch {
		case w.Ref.Kind != "Pod":
			run.Controller, run.Scale = w.Ref.String(), w.Replicas
		case w.Owner != nil:
			run.Controller = ownerRef(w).String()
			orphans[run.Controller] += w.Replicas
		}
		m.addPod(run)
	}
	for _, p := range m.Pods {
		if p.Workload.Kind == "Pod" && p.Controller != "" {
			p.Scale = orphans[p.Controller]
		}
	}
}

// filed is the pod a workload would make, as kubectl drain's filters see
// it: its template and, for a controller, a controllerRef to it. Filter
// reads the pod and keeps nothing, so one is written over for every
// workload: a new one each (the spec's copy, its owner, a bool) was 60,000
// allocations of 1.5 KB at 15,000 nodes, garbage at once.
type filed struct {
	pod   corev1.Pod
	owner [1]metav1.OwnerReference
	yes   bool
}

// of writes w's pod over the last one.
func (f *filed) of(w *inventory.Workload) *corev1.Pod {
	if w.Ref.Kind == "Pod" {
		f.pod = corev1.Pod{ObjectMeta: *w.Meta, Spec: w.Template.Spec}
		return &f.pod
	}
	// A shallow copy: a copy of the labels and annotations of 60,000
	// templates was most of this function's cost.
	f.yes = true
	f.owner[0] = metav1.OwnerReference{APIVersion: "apps/v1", Kind: w.Ref.Kind, Name: w.Ref.Name, Controller: &f.yes}
	f.pod = corev1.Pod{ObjectMeta: w.Template.ObjectMeta, Spec: w.Template.Spec}
	f.pod.OwnerReferences = f.owner[:]
	return &f.pod
}

func ownerRef(w *inventory.Workload) object.Ref {
	return object.Ref{Kind: w.Owner.Kind, Namespace: w.Ref.Namespace, Name: w.Owner.Name}
}

// DaemonSetPods are the pods DaemonSet w of the files runs, one on each of
// nodes (those its template may run on; a DaemonSet tolerates cordons): a
// drain leaves them, but the GPU Operator's GPU-pod deletion fails on
// them.
func DaemonSetPods(w *inventory.Workload, nodes []*corev1.Node) []*Pod {
	verdict := Filter(new(filed).of(w))
	out := make([]*Pod, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, &Pod{Namespace: w.Ref.Namespace, Name: w.Ref.Name + "-" + n.Name, Count: 1, Labels: w.Template.Labels, Spec: &w.Template.Spec,
			Workload: w.Ref, SpecPath: w.SpecPath, Controller: w.Ref.String(), Node: n.Name,
			Phase: corev1.PodRunning, Ready: true, Verdict: verdict})
	}
	return out
}

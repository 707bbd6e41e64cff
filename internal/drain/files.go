package drain

import (
	"cmp"
	"fmt"
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
// run of Count replicas until place lands them one by one. A ReplicaSet
// or Pod whose controller was read too is counted under that controller,
// not twice. A Pod whose controller was not read counts as one replica of
// it.
func (m *Model) filePods(inv *inventory.Inventory, where func(object.Ref) string) error {
	all := inv.Workloads()
	read := map[object.Ref]bool{}
	for _, w := range all {
		read[w.Ref] = true
	}
	var ws []*inventory.Workload
	for _, w := range all {
		if w.DaemonSet && GPUPod(&w.Template.Spec) {
			m.gpuDaemons = append(m.gpuDaemons, w)
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
	for _, w := range ws {
		spec := &w.Template.Spec
		g, err := m.newGroup(w.Ref.Namespace, w.Template.Labels, spec)
		if err != nil {
			return fmt.Errorf("%s: %w", where(w.Ref), err)
		}
		run := &Pod{
			Namespace: w.Ref.Namespace, Name: w.Ref.Name, Count: w.Replicas, Labels: w.Template.Labels, Spec: spec,
			Workload: w.Ref, SpecPath: w.SpecPath, Phase: corev1.PodRunning, Ready: true, Verdict: Filter(filePod(w)), group: g,
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
	return nil
}

// filePod is the pod a workload would make, as kubectl drain's filters see
// it: its template and, for a controller, a controllerRef to it.
func filePod(w *inventory.Workload) *corev1.Pod {
	if w.Ref.Kind == "Pod" {
		return &corev1.Pod{ObjectMeta: *w.Meta, Spec: w.Template.Spec}
	}
	yes := true
	meta := *w.Template.ObjectMeta.DeepCopy()
	meta.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: w.Ref.Kind, Name: w.Ref.Name, Controller: &yes}}
	return &corev1.Pod{ObjectMeta: meta, Spec: w.Template.Spec}
}

func ownerRef(w *inventory.Workload) object.Ref {
	return object.Ref{Kind: w.Owner.Kind, Namespace: w.Ref.Namespace, Name: w.Owner.Name}
}

// gpuDaemonPods adds, from files, the pods of the DaemonSets whose
// containers request GPUs, one on each node their template may run on
// (a DaemonSet tolerates cordons): a drain leaves them, but the GPU
// Operator's GPU-pod deletion fails on them. Other DaemonSets' pods
// matter to no phase and are not modelled. They count against
// maxModelPods too: many DaemonSets on many nodes are as many pods.
func (m *Model) gpuDaemonPods(where func(object.Ref) string) error {
	for _, w := range m.gpuDaemons {
		verdict := Filter(filePod(w))
		nodes := m.eligible(m.placement(m.fleet, &w.Template.Spec))
		if len(m.Pods)+len(nodes) > maxModelPods {
			return tooManyPods(where(w.Ref), fmt.Sprintf("a pod on each of %d nodes", len(nodes)))
		}
		for _, n := range nodes {
			p := &Pod{Namespace: w.Ref.Namespace, Name: w.Ref.Name + "-" + n.Name, Labels: w.Template.Labels, Spec: &w.Template.Spec,
				Workload: w.Ref, SpecPath: w.SpecPath, Controller: w.Ref.String(), Node: n.Name,
				Phase: corev1.PodRunning, Ready: true, Verdict: verdict}
			m.addPod(p)
			m.used.add(n.Name, p, 1)
		}
	}
	return nil
}

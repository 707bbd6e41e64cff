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
// (a drain ignores them), as are Jobs' and CronJobs'. A replica is named <workload>-<ordinal>. A ReplicaSet or Pod whose
// controller was read too is counted under that controller, not twice. A
// Pod whose controller was not read counts as one replica of it.
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
		if w.Budgets() && (w.Owner == nil || !read[ownerRef(w)]) {
			ws = append(ws, w)
		}
	}
	if err := modelSize(ws, where); err != nil {
		return err
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
		verdict := Filter(filePod(w))
		for i := range w.Replicas {
			p := &Pod{
				Namespace: w.Ref.Namespace, Name: w.Ref.Name, Labels: w.Template.Labels, Spec: spec,
				Workload: w.Ref, SpecPath: w.SpecPath, Phase: corev1.PodRunning, Ready: true, Verdict: verdict, group: g,
			}
			switch {
			case w.Ref.Kind != "Pod":
				p.Name = fmt.Sprintf("%s-%d", w.Ref.Name, i)
				p.Controller, p.Scale = w.Ref.String(), w.Replicas
			case w.Owner != nil:
				p.Controller = ownerRef(w).String()
				orphans[p.Controller]++
			}
			m.addPod(p)
		}
	}
	for _, p := range m.Pods {
		if p.Workload.Kind == "Pod" && p.Controller != "" {
			p.Scale = orphans[p.Controller]
		}
	}
	return nil
}

// MaxModelPods bounds the file pod model, which holds one pod per
// replica: the target fleet's 20,000 workloads make about 40,000, and
// replicas: 2147483647 (valid) would otherwise take gigabytes.
const MaxModelPods = 250_000

// modelSize refuses a model past MaxModelPods, naming the largest workload.
func modelSize(ws []*inventory.Workload, where func(object.Ref) string) error {
	var total int64
	var largest *inventory.Workload
	for _, w := range ws {
		total += int64(w.Replicas)
		if largest == nil || w.Replicas > largest.Replicas {
			largest = w
		}
	}
	if total <= MaxModelPods {
		return nil
	}
	return fmt.Errorf("%s: %d replicas: the pod model of the files would hold %d pods, more than the %d drvcheck models (one per replica)",
		where(largest.Ref), largest.Replicas, total, MaxModelPods)
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
// matter to no phase and are not modelled.
func (m *Model) gpuDaemonPods() {
	for _, w := range m.gpuDaemons {
		verdict := Filter(filePod(w))
		for _, n := range m.eligible(m.placement(m.fleet, &w.Template.Spec)) {
			p := &Pod{Namespace: w.Ref.Namespace, Name: w.Ref.Name + "-" + n.Name, Labels: w.Template.Labels, Spec: &w.Template.Spec,
				Workload: w.Ref, SpecPath: w.SpecPath, Controller: w.Ref.String(), Node: n.Name,
				Phase: corev1.PodRunning, Ready: true, Verdict: verdict}
			m.addPod(p)
			m.gpuUsed.add(n.Name, p.gpu, 1)
		}
	}
}

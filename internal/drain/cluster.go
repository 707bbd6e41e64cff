package drain

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/object"
)

// clusterPods takes a cluster's pods as they are: on spec.nodeName, in
// their phase, Ready by their condition. Each pod's controller is found as
// the disruption controller's finders find it, for budgets whose status
// must be computed again.
func (m *Model) clusterPods(inv *inventory.Inventory) {
	ctl := newControllers(inv)
	claims := newGPUClaims(inv.ResourceClaims)
	pods := slices.Clone(inv.Pods)
	slices.SortFunc(pods, func(a, b *corev1.Pod) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	for _, kp := range pods {
		ref := object.Ref{Kind: "Pod", Namespace: kp.Namespace, Name: kp.Name}
		p := &Pod{
			Namespace: kp.Namespace, Name: kp.Name, Labels: kp.Labels, Spec: &kp.Spec,
			Workload: ref, SpecPath: podSpecPath, Node: kp.Spec.NodeName, Phase: kp.Status.Phase,
			Ready: inventory.PodReady(kp), Deleting: kp.DeletionTimestamp != nil, Verdict: Filter(kp),
			GPUClaim: claims.holds(kp),
		}
		if c := metav1.GetControllerOfNoCopy(kp); c != nil {
			ctl.resolve(p, c)
		}
		m.addPod(p)
	}
}

// podSpecPath is where a pod's own spec sits in its manifest.
var podSpecPath = []any{"spec"}

// controllers finds the controllers of live pods by namespace/name.
type controllers struct {
	rcs  map[string]*corev1.ReplicationController
	rss  map[string]objScale
	deps map[string]objScale
	sts  map[string]objScale
}

type objScale struct {
	meta  *metav1.ObjectMeta
	scale int32
}

func newControllers(inv *inventory.Inventory) *controllers {
	c := &controllers{rcs: map[string]*corev1.ReplicationController{}, rss: map[string]objScale{}, deps: map[string]objScale{}, sts: map[string]objScale{}}
	for _, x := range inv.ReplicationControllers {
		c.rcs[x.Namespace+"/"+x.Name] = x
	}
	for _, x := range inv.ReplicaSets {
		c.rss[x.Namespace+"/"+x.Name] = objScale{&x.ObjectMeta, inventory.Replicas(x.Spec.Replicas)}
	}
	for _, x := range inv.Deployments {
		c.deps[x.Namespace+"/"+x.Name] = objScale{&x.ObjectMeta, inventory.Replicas(x.Spec.Replicas)}
	}
	for _, x := range inv.StatefulSets {
		c.sts[x.Namespace+"/"+x.Name] = objScale{&x.ObjectMeta, inventory.Replicas(x.Spec.Replicas)}
	}
	return c
}

// resolve sets p's controller, its scale and the workload to name, trying
// the disruption controller's finders in order: ReplicationController,
// Deployment (through its ReplicaSet), ReplicaSet, StatefulSet. Any other
// controller (a Job, a DaemonSet, a custom resource's /scale, which a
// static inventory cannot read) is "found no controllers", as when the
// controller is gone: the budget's computed status then fails safe.
func (c *controllers) resolve(p *Pod, ref *metav1.OwnerReference) {
	key := p.Namespace + "/" + ref.Name
	p.Workload = object.Ref{Kind: ref.Kind, Namespace: p.Namespace, Name: ref.Name}
	p.Controller = p.Workload.String()
	set := func(meta *metav1.ObjectMeta, kind string, scale int32) {
		p.Workload = object.Ref{Kind: kind, Namespace: p.Namespace, Name: meta.Name}
		p.Controller, p.Scale = p.Workload.String(), scale
	}
	switch ref.Kind {
	case "ReplicationController":
		if rc, ok := c.rcs[key]; ok && sameUID(ref.UID, rc.UID) {
			set(&rc.ObjectMeta, ref.Kind, inventory.Replicas(rc.Spec.Replicas))
			return
		}
	case "ReplicaSet":
		rs, ok := c.rss[key]
		if !ok || !sameUID(ref.UID, rs.meta.UID) {
			break
		}
		if o := metav1.GetControllerOfNoCopy(rs.meta); o != nil && o.Kind == "Deployment" {
			if d, ok := c.deps[p.Namespace+"/"+o.Name]; ok && sameUID(o.UID, d.meta.UID) {
				set(d.meta, "Deployment", d.scale)
				return
			}
		}
		set(rs.meta, ref.Kind, rs.scale)
		return
	case "StatefulSet":
		if s, ok := c.sts[key]; ok && sameUID(ref.UID, s.meta.UID) {
			set(s.meta, ref.Kind, s.scale)
			return
		}
	}
	p.ScaleErr = fmt.Sprintf("found no controllers for pod %q", p.Name)
}

// sameUID compares UIDs when both are known.
func sameUID(a, b types.UID) bool { return a == "" || b == "" || a == b }

package cluster

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/rest"

	"github.com/drvcheck/drvcheck/internal/testcluster"
)

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestReadEveryKind creates one object of each kind drvcheck reads and finds
// each, typed, in the inventory.
func TestReadEveryKind(t *testing.T) {
	c := shared.Get(t)
	ctx := testContext(t)
	ns := "every-kind"
	mustNamespace(t, ctx, c, ns)
	cs := c.Client
	labels := map[string]string{"app": "x"}
	tmpl := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}
	jobTmpl := *tmpl.DeepCopy()
	jobTmpl.Spec.RestartPolicy = corev1.RestartPolicyNever
	sel := &metav1.LabelSelector{MatchLabels: labels}
	zero := int32(0)
	om := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, Namespace: ns} }
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := cs.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{ObjectMeta: om("d"), Spec: appsv1.DeploymentSpec{Replicas: &zero, Selector: sel, Template: tmpl}}, metav1.CreateOptions{})
	check(err)
	_, err = cs.AppsV1().StatefulSets(ns).Create(ctx, &appsv1.StatefulSet{ObjectMeta: om("s"), Spec: appsv1.StatefulSetSpec{Replicas: &zero, Selector: sel, Template: tmpl}}, metav1.CreateOptions{})
	check(err)
	_, err = cs.AppsV1().DaemonSets(ns).Create(ctx, &appsv1.DaemonSet{ObjectMeta: om("ds"), Spec: appsv1.DaemonSetSpec{Selector: sel, Template: tmpl}}, metav1.CreateOptions{})
	check(err)
	_, err = cs.BatchV1().Jobs(ns).Create(ctx, &batchv1.Job{ObjectMeta: om("j"), Spec: batchv1.JobSpec{Parallelism: &zero, Template: jobTmpl}}, metav1.CreateOptions{})
	check(err)
	_, err = cs.BatchV1().CronJobs(ns).Create(ctx, &batchv1.CronJob{ObjectMeta: om("cj"), Spec: batchv1.CronJobSpec{
		Schedule: "0 0 1 1 *", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: jobTmpl}}}}, metav1.CreateOptions{})
	check(err)
	minAvail := intstr.FromInt32(1)
	_, err = cs.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, &policyv1.PodDisruptionBudget{ObjectMeta: om("pdb"), Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &minAvail, Selector: sel}}, metav1.CreateOptions{})
	check(err)
	_, err = cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: om("bare"), Spec: jobTmpl.Spec}, metav1.CreateOptions{})
	check(err)
	_, err = cs.CoreV1().ReplicationControllers(ns).Create(ctx, &corev1.ReplicationController{ObjectMeta: om("rc"),
		Spec: corev1.ReplicationControllerSpec{Replicas: &zero, Selector: labels, Template: &tmpl}}, metav1.CreateOptions{})
	check(err)
	_, err = cs.ResourceV1().ResourceClaims(ns).Create(ctx, &resourcev1.ResourceClaim{ObjectMeta: om("claim"), Spec: resourcev1.ResourceClaimSpec{
		Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu.nvidia.com"}}}}}}, metav1.CreateOptions{})
	check(err)
	gpuRequest := resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu.nvidia.com"}}}}
	_, err = cs.ResourceV1().ResourceClaimTemplates(ns).Create(ctx, &resourcev1.ResourceClaimTemplate{ObjectMeta: om("tmpl"),
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{Devices: gpuRequest}}}, metav1.CreateOptions{})
	check(err)
	_, err = cs.ResourceV1().DeviceClasses().Create(ctx, &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "every-kind.example.com"}}, metav1.CreateOptions{})
	check(err)
	sliceNode := "every-kind-node"
	_, err = cs.ResourceV1().ResourceSlices().Create(ctx, &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "every-kind-slice"},
		Spec: resourcev1.ResourceSliceSpec{Driver: "gpu.nvidia.com", NodeName: &sliceNode, Pool: resourcev1.ResourcePool{Name: sliceNode, ResourceSliceCount: 1},
			Devices: []resourcev1.Device{{Name: "gpu-0"}}}}, metav1.CreateOptions{})
	check(err)
	mustNode(t, ctx, c, "every-kind-node", map[string]string{"nvidia.com/gpu.present": "true"})

	client, err := NewForConfig(c.Config)
	check(err)
	inv, err := client.Read(ctx, nil, true)
	check(err)
	if !inv.Live {
		t.Error("inventory not marked Live")
	}
	has := func(kind, name string, names []string) {
		t.Helper()
		for _, n := range names {
			if n == name {
				return
			}
		}
		t.Errorf("%s %s not read; got %v", kind, name, names)
	}
	has("Node", "every-kind-node", names(inv.Nodes, func(x *corev1.Node) string { return x.Name }))
	has("Namespace", ns, names(inv.Namespaces, func(x *corev1.Namespace) string { return x.Name }))
	has("Pod", ns+"/bare", names(inv.Pods, func(x *corev1.Pod) string { return x.Namespace + "/" + x.Name }))
	has("PodDisruptionBudget", ns+"/pdb", names(inv.PDBs, func(x *policyv1.PodDisruptionBudget) string { return x.Namespace + "/" + x.Name }))
	has("Deployment", ns+"/d", names(inv.Deployments, func(x *appsv1.Deployment) string { return x.Namespace + "/" + x.Name }))
	has("StatefulSet", ns+"/s", names(inv.StatefulSets, func(x *appsv1.StatefulSet) string { return x.Namespace + "/" + x.Name }))
	has("DaemonSet", ns+"/ds", names(inv.DaemonSets, func(x *appsv1.DaemonSet) string { return x.Namespace + "/" + x.Name }))
	has("Job", ns+"/j", names(inv.Jobs, func(x *batchv1.Job) string { return x.Namespace + "/" + x.Name }))
	has("CronJob", ns+"/cj", names(inv.CronJobs, func(x *batchv1.CronJob) string { return x.Namespace + "/" + x.Name }))
	has("ReplicationController", ns+"/rc", names(inv.ReplicationControllers, func(x *corev1.ReplicationController) string { return x.Namespace + "/" + x.Name }))
	has("ResourceClaim", ns+"/claim", names(inv.ResourceClaims, func(x *resourcev1.ResourceClaim) string { return x.Namespace + "/" + x.Name }))
	has("ResourceClaimTemplate", ns+"/tmpl", names(inv.ResourceClaimTemplates, func(x *resourcev1.ResourceClaimTemplate) string { return x.Namespace + "/" + x.Name }))
	has("DeviceClass", "every-kind.example.com", names(inv.DeviceClasses, func(x *resourcev1.DeviceClass) string { return x.Name }))
	has("ResourceSlice", "every-kind-slice", names(inv.ResourceSlices, func(x *resourcev1.ResourceSlice) string { return x.Name }))
	// Every Kubernetes kind of the table was created above (the operator's
	// and the GPU workloads' have their own tests).
	var core []string
	for _, k := range AllKinds {
		if !k.entry().Custom {
			core = append(core, k.ObjectKind)
		}
	}
	if want := []string{"Node", "Pod", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob",
		"ReplicationController", "PodDisruptionBudget", "Namespace", "ResourceClaim", "ResourceClaimTemplate", "DeviceClass", "ResourceSlice"}; !slices.Equal(core, want) {
		t.Errorf("kinds read %v; this test covers %v", core, want)
	}

	for _, d := range inv.Deployments {
		if d.Name == "d" && (d.Spec.Replicas == nil || *d.Spec.Replicas != 0 || d.Spec.Template.Spec.Containers[0].Image != "busybox") {
			t.Errorf("deployment d read wrong: %+v", d.Spec)
		}
	}
	total := len(inv.Nodes) + len(inv.Pods) + len(inv.Namespaces) + len(inv.PDBs) + len(inv.Deployments) + len(inv.ReplicaSets) +
		len(inv.StatefulSets) + len(inv.DaemonSets) + len(inv.Jobs) + len(inv.CronJobs) + len(inv.ReplicationControllers) + len(inv.ResourceClaims) +
		len(inv.ResourceClaimTemplates) + len(inv.DeviceClasses) + len(inv.ResourceSlices)
	if inv.Objects != total || len(inv.Raw()) != total {
		t.Errorf("Objects %d, raw %d, want both %d", inv.Objects, len(inv.Raw()), total)
	}
	for _, m := range inv.Raw() {
		if m["apiVersion"] == "policy/v1" && m["kind"] == "PodDisruptionBudget" {
			if spec, _ := m["spec"].(map[string]any); spec["minAvailable"] != int64(1) {
				t.Errorf("raw PDB spec.minAvailable = %#v, want 1", spec["minAvailable"])
			}
			return
		}
	}
	t.Error("no raw object with apiVersion policy/v1 and kind PodDisruptionBudget")
}

// TestReadPagesReadOnly lists more budgets than fit in a page and checks
// that the lists were paged with continue tokens, in protobuf, and that
// nothing but GET was sent.
func TestReadPagesReadOnly(t *testing.T) {
	c := shared.Get(t)
	ctx := testContext(t)
	ns := "many-budgets"
	mustNamespace(t, ctx, c, ns)
	const n = 1234
	parallel(t, n, func(i int) error {
		one := intstr.FromInt32(1)
		_, err := c.Client.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("b-%04d", i), Namespace: ns},
			Spec:       policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"none": "x"}}},
		}, metav1.CreateOptions{})
		return err
	})
	rec := &recorder{}
	cfg := rest.CopyConfig(c.Config)
	cfg.WrapTransport = rec.wrap
	client, err := NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := client.Read(ctx, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for _, b := range inv.PDBs {
		if b.Namespace == ns {
			got++
		}
	}
	if got != n {
		t.Fatalf("read %d budgets of %s, want %d", got, ns, n)
	}
	var pdbPages []request
	for _, r := range rec.all() {
		if r.method != http.MethodGet {
			t.Errorf("%s %s: drvcheck must only read", r.method, r.path)
		}
		// Discovery (which custom resources are served) is not a list.
		if r.path == "/api" || r.path == "/apis" || strings.Count(r.path, "/") == 3 && strings.HasPrefix(r.path, "/apis/") {
			continue
		}
		// Custom resources have no protobuf form.
		if !strings.HasPrefix(r.path, "/apis/nvidia.com/") && !strings.HasPrefix(r.contentType, "application/vnd.kubernetes.protobuf") {
			t.Errorf("%s answered %q, want protobuf", r.path, r.contentType)
		}
		if r.limit != "500" {
			t.Errorf("%s: limit %q, want 500", r.path, r.limit)
		}
		if r.path == "/apis/policy/v1/poddisruptionbudgets" {
			pdbPages = append(pdbPages, r)
		}
	}
	want := (len(inv.PDBs) + PageSize - 1) / PageSize
	if len(pdbPages) != want {
		t.Fatalf("%d budget list requests for %d budgets, want %d", len(pdbPages), len(inv.PDBs), want)
	}
	for i, r := range pdbPages {
		if (i == 0) != (r.cont == "") {
			t.Errorf("page %d: continue token %q", i, r.cont)
		}
	}
	core, _, _ := client.split(AllKinds) // custom resources only when served
	if len(rec.all()) < len(core) {
		t.Errorf("%d requests for %d kinds", len(rec.all()), len(core))
	}
}

// TestNode gets one node, and names a missing one with the host.
func TestNode(t *testing.T) {
	c := shared.Get(t)
	ctx := testContext(t)
	mustNode(t, ctx, c, "get-me", map[string]string{"a": "b"})
	client, err := NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	n, err := client.Node(ctx, "get-me")
	if err != nil || n.Labels["a"] != "b" {
		t.Fatalf("Node(get-me) = %v, %v", n, err)
	}
	_, err = client.Node(ctx, "no-such-node")
	if err == nil || !strings.Contains(err.Error(), "node no-such-node not found in cluster "+c.Host) {
		t.Fatalf("Node(no-such-node) error = %v", err)
	}
}

type request struct {
	method, path, limit, cont, contentType string
}

// recorder records every request a client sends, and the answer's type.
type recorder struct {
	mu   sync.Mutex
	reqs []request
}

func (r *recorder) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		q := req.URL.Query()
		rq := request{method: req.Method, path: req.URL.Path, limit: q.Get("limit"), cont: q.Get("continue")}
		if resp != nil {
			rq.contentType = resp.Header.Get("Content-Type")
		}
		r.mu.Lock()
		r.reqs = append(r.reqs, rq)
		r.mu.Unlock()
		return resp, err
	})
}

func (r *recorder) all() []request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]request(nil), r.reqs...)
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func names[T any](xs []*T, name func(*T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = name(x)
	}
	return out
}

func mustNamespace(t *testing.T, ctx context.Context, c *testcluster.Cluster, ns string) {
	t.Helper()
	_, err := c.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WaitServiceAccount(ctx, ns); err != nil {
		t.Fatal(err)
	}
}

func mustNode(t *testing.T, ctx context.Context, c *testcluster.Cluster, name string, labels map[string]string) {
	t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"}}}
	if _, err := c.Client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// parallel runs create(0..n-1) on a few workers and fails t on any error.
func parallel(t *testing.T, n int, create func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan int)
	for range 16 {
		wg.Go(func() {
			for i := range next {
				if err := create(i); err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

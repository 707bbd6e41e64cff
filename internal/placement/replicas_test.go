package placement

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/drain/draintest"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/load"
)

// A workload of billions of replicas (valid) is modelled in bounded memory:
// the nodes take what the kubelet admits, and the rest is one entry whose
// count the budgets still see.
func TestHugeReplicasAreCountedNotModelled(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m := yamlModel(t, draintest.Nodes(2), draintest.Deployment("big", 2147483647, "app: big", ""),
		draintest.PDB("min-one", "default", "minAvailable: 1", "app: big"))
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Fatalf("modelling took %d MiB", grew>>20)
	}
	if got, want := len(m.Pods), 2*DefaultMaxPods+1; got != want {
		t.Fatalf("%d pods in the model, want %d", got, want)
	}
	rest := m.Pods[len(m.Pods)-1]
	if rest.Key() != "default/big-220..2147483646" || rest.Count != 2147483647-220 || rest.Node != "" {
		t.Fatalf("rest %s count %d on %q", rest.Key(), rest.Count, rest.Node)
	}
	if why := m.WhyUnplaced(rest); why != "0/2 nodes are available: 2 Too many pods." {
		t.Fatalf("unplaced because %q", why)
	}
	b := budget(m, "min-one")
	if c := b.Count; c.Expected != 2147483647 || c.Healthy != 2147483647 || c.Allowed != 2147483646 || b.Size() != 2147483647 {
		t.Fatalf("count %+v, size %d", c, b.Size())
	}
	room := m.NewSim(drain.Flags{}).Room("n0")
	if len(room.Refusals) != 0 || len(room.Drain.Evicted) != DefaultMaxPods {
		t.Fatalf("room %d refusals, %d evicted", len(room.Refusals), len(room.Drain.Evicted))
	}
	if e := room.Drain.Evicted[0]; e.To != "" || !strings.Contains(e.Why, "1 Too many pods") {
		t.Fatalf("replacement %+v", e)
	}
}

// The scheduler counts pods against allocatable pods: a node full of pods
// takes no more, and the replicas left over are counted on no node.
func TestNodesHoldTheirAllocatablePods(t *testing.T) {
	full := func(name string, pods int) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata: {name: %s}\nstatus: {allocatable: {pods: %q}}", name, fmt.Sprint(pods))
	}
	pinned := `apiVersion: v1
kind: Pod
metadata: {name: pinned, labels: {app: pinned}}
spec: {nodeName: a, containers: [{name: c, image: x}]}`
	m := yamlModel(t, full("a", 2), full("b", 1), pinned, draintest.Deployment("web", 5, "app: web", ""),
		draintest.PDB("web", "default", "maxUnavailable: 1", "app: web"))
	if got, want := placedOn(m), "pinned@a web-0@a web-1@b web-2..4@"; got != want {
		t.Fatalf("placed %s, want %s", got, want)
	}
	b := budget(m, "web")
	if c := b.Count; c.Expected != 5 || c.Healthy != 5 || c.Desired != 4 || c.Allowed != 1 {
		t.Fatalf("count %+v", c)
	}
	// A pod pinned past what the node admits is refused by its kubelet.
	m = yamlModel(t, full("a", 0), pinned)
	if why := m.WhyUnplaced(m.Pods[0]); why != "the kubelet of a refuses it: Too many pods" {
		t.Fatalf("pinned pod: %q", why)
	}
	// A replacement does not land on a full node.
	m = yamlModel(t, full("a", 1), full("b", 1), draintest.Deployment("web", 2, "app: web", ""))
	res := m.NewSim(drain.Flags{}).Drain("a")
	if len(res.Evicted) != 1 || res.Evicted[0].To != "" || !strings.Contains(res.Evicted[0].Why, "1 Too many pods") {
		t.Fatalf("drain %+v", res)
	}
}

// trainDeployment is 3 one-GPU replicas, for the tests of what a node holds.
const trainDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: train, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: train}}
  template:
    metadata: {labels: {app: train}}
    spec: {containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]}`

// placedOn is where m's pods are, as pod@node in model order.
func placedOn(m *Model) string {
	var on []string
	for _, p := range m.Pods {
		on = append(on, fmt.Sprintf("%s@%s", p.Name, p.Node))
	}
	return strings.Join(on, " ")
}

// A node manifest that lists status.capacity and no allocatable holds its
// capacity: the API server defaults allocatable to capacity
// (SetDefaults_NodeStatus). A node of 2 GPUs takes 2 one-GPU pods.
func TestCapacityStandsForAllocatable(t *testing.T) {
	node := func(name, list string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata: {name: %s}\nstatus: {%s: {nvidia.com/gpu: \"2\", pods: \"110\"}}", name, list)
	}
	for _, list := range []string{"capacity", "allocatable"} {
		m := yamlModel(t, node("a", list), trainDeployment)
		if got, want := placedOn(m), "train-0@a train-1@a train-2@"; got != want {
			t.Errorf("%s: placed %s, want %s", list, got, want)
		}
	}
}

// Under NVIDIA's DRA driver the node lists no nvidia.com/gpu; a
// DeviceClass that maps it (extendedResourceName) gives a pod that asks
// for it the node's devices of the class, as the scheduler's DRA plugin
// does: a node of 2 GPUs, read from GFD's labels, takes 2 one-GPU pods.
// Without the class the pods fit nowhere.
func TestDRAExtendedResourceHoldsPods(t *testing.T) {
	node := `apiVersion: v1
kind: Node
metadata: {name: a, labels: {nvidia.com/gpu.present: "true", nvidia.com/gpu.count: "2", nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}
status: {allocatable: {cpu: "8", pods: "110"}}`
	class := `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.nvidia.com}
spec:
  selectors: [{cel: {expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"}}]
  extendedResourceName: nvidia.com/gpu`
	for _, c := range []struct {
		objs []string
		want string
	}{
		{[]string{node, class, trainDeployment}, "train-0@a train-1@a train-2@"},
		{[]string{node, trainDeployment}, "train-0..2@"}, // the unplaced copies are one pod of 3
	} {
		m := yamlModel(t, c.objs...)
		if got := placedOn(m); got != c.want {
			t.Errorf("%d objects: placed %s, want %s", len(c.objs), got, c.want)
		}
	}
}

// A finished pod takes no room on its node: the scheduler no longer counts it.
func TestFinishedPodsTakeNothing(t *testing.T) {
	if holdsNode(corev1.PodSucceeded) || holdsNode(corev1.PodFailed) || !holdsNode(corev1.PodRunning) || !holdsNode(corev1.PodPending) {
		t.Fatal("only finished pods leave their node's room")
	}
}

// Nodes that declare more pods than any cluster runs cannot make the
// model place billions: past its bound it stops, naming the workload.
func TestModelBoundNamesTheWorkload(t *testing.T) {
	defer func(n int) { maxModelPods = n }(maxModelPods)
	maxModelPods = 1000
	objs, err := load.Parse(&load.Source{Name: "big.yaml"}, []byte(
		"apiVersion: v1\nkind: Node\nmetadata: {name: n0}\nstatus: {allocatable: {pods: \"1000000000000\"}}\n---\n"+draintest.Deployment("big", 2147483647, "app: big", "")))
	if err != nil {
		t.Fatal(err)
	}
	inv, err := inventory.FromObjects(objs, false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(inv)
	if err == nil || !strings.Contains(err.Error(), "Deployment/default/big (big.yaml:") || !strings.Contains(err.Error(), "more than the 1000 pods drvcheck models") {
		t.Fatalf("error %v", err)
	}
	maxModelPods = 1001 // a node of 1000 pods holds them with one entry left over
	m := yamlModel(t, "apiVersion: v1\nkind: Node\nmetadata: {name: n0}\nstatus: {allocatable: {pods: \"1000\"}}", draintest.Deployment("big", 2147483647, "app: big", ""))
	if len(m.Pods) != 1001 {
		t.Fatalf("%d pods", len(m.Pods))
	}
}

// GPU DaemonSets make a pod on each node: they count against the bound too.
func TestModelBoundCountsDaemonSetPods(t *testing.T) {
	defer func(n int) { maxModelPods = n }(maxModelPods)
	maxModelPods = 5
	ds := func(name string) string {
		return fmt.Sprintf(`apiVersion: apps/v1
kind: DaemonSet
metadata: {name: %s}
spec:
  selector: {matchLabels: {app: %s}}
  template:
    metadata: {labels: {app: %s}}
    spec: {containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]}`, name, name, name)
	}
	if m := yamlModel(t, draintest.Nodes(2), ds("a"), ds("b")); len(m.Pods) != 4 {
		t.Fatalf("%d pods, want 4", len(m.Pods))
	}
	objs, err := load.Parse(&load.Source{Name: "ds.yaml"}, []byte(strings.Join([]string{draintest.Nodes(2), ds("a"), ds("b"), ds("c")}, "\n---\n")))
	if err != nil {
		t.Fatal(err)
	}
	inv, err := inventory.FromObjects(objs, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(inv); err == nil || !strings.Contains(err.Error(), "DaemonSet/default/c (ds.yaml:") || !strings.Contains(err.Error(), "more than the 5 pods") {
		t.Fatalf("error %v", err)
	}
}

// A search that failed is remembered only until room is freed: here x's
// replacement finds every node full, and lands on c once c is drained of
// its bare pod and uncordoned.
func TestFailedSearchIsRedoneWhenRoomIsFreed(t *testing.T) {
	full := func(name string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata: {name: %s}\nstatus: {allocatable: {pods: \"1\"}}", name)
	}
	bare := "apiVersion: v1\nkind: Pod\nmetadata: {name: w}\nspec: {nodeName: c, containers: [{name: c, image: x}]}"
	m := yamlModel(t, full("a"), full("b"), full("c"), bare, draintest.Deployment("x", 1, "app: x", ""), draintest.Deployment("y", 1, "app: y", ""))
	s := m.NewSim(drain.Flags{Force: true})
	if res := s.Drain("a"); len(res.Evicted) != 1 || res.Evicted[0].To != "" {
		t.Fatalf("drain a: %+v", res)
	}
	if res := s.Drain("c"); len(res.Evicted) != 1 || !res.Evicted[0].Gone {
		t.Fatalf("drain c: %+v", res)
	}
	if landed := s.Uncordon("c"); len(landed) != 1 || landed[0].To != "c" {
		t.Fatalf("uncordon c: %+v", landed)
	}
}

// A pod that leaves a cordoned node frees anti-affinity room in the whole
// of its zone: here web-0 waits while old, a pod it keeps out of zone z1,
// runs on a; once a is drained of old, b (z1) has room for web-0, which
// lands there at the next uncordon, even of a node without room (d). Only
// a domain of one node (a hostname) keeps its room to itself until it is
// uncordoned. The same with every search run in full.
func TestAntiAffinityRoomFreedInAZone(t *testing.T) {
	defer func() { remembers = true }()
	node := func(name, zone string, pods int) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata: {name: %s, labels: {topology.kubernetes.io/zone: %s}}\nstatus: {allocatable: {pods: %q}}", name, zone, fmt.Sprint(pods))
	}
	old := "apiVersion: v1\nkind: Pod\nmetadata: {name: old, labels: {app: web}}\nspec: {nodeName: a, containers: [{name: c, image: x}]}"
	zoneAnti := strings.ReplaceAll(draintest.HostnameAnti, "kubernetes.io/hostname", "topology.kubernetes.io/zone")
	m := yamlModel(t, node("a", "z1", 10), node("b", "z1", 10), node("c", "z2", 10), node("d", "z2", 0), old,
		draintest.Deployment("web", 1, "app: web", zoneAnti))
	for _, remember := range []bool{true, false} {
		remembers = remember
		s := m.NewSim(drain.Flags{Force: true})
		s.Drain("d")
		if res := s.Drain("c"); len(res.Evicted) != 1 || res.Evicted[0].To != "" {
			t.Fatalf("remembered failures %v: drain c: %+v", remember, res)
		}
		if res := s.Drain("a"); len(res.Evicted) != 1 || !res.Evicted[0].Gone {
			t.Fatalf("remembered failures %v: drain a: %+v", remember, res)
		}
		if landed := s.Uncordon("d"); len(landed) != 1 || landed[0].To != "b" {
			t.Errorf("remembered failures %v: uncordoning d landed %+v, want web-0 on b", remember, landed)
		}
	}
}

// A node that fails two of the scheduler's filters counts under the first
// in its order: NodeResourcesFit before InterPodAffinity
// (pkg/scheduler/apis/config/v1/default_plugins.go; the framework stops at
// a node's first failing filter). The replacement of web-0 meets a
// cordoned a, b with room but a web pod, and c full and with a web pod.
func TestWhyNotCountsTheFirstFailingFilter(t *testing.T) {
	node := func(name string, pods int) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata: {name: %s, labels: {kubernetes.io/hostname: %s}}\nstatus: {allocatable: {pods: %q}}", name, name, fmt.Sprint(pods))
	}
	m := yamlModel(t, node("a", 2), node("b", 2), node("c", 1), draintest.Deployment("web", 3, "app: web", draintest.HostnameAnti))
	res := m.NewSim(drain.Flags{Force: true}).Drain("a")
	if len(res.Evicted) != 1 {
		t.Fatalf("drain %+v", res)
	}
	want := "0/3 nodes are available: 1 Too many pods, 1 node(s) didn't match pod anti-affinity rules, 1 node(s) were unschedulable."
	if e := res.Evicted[0]; e.To != "" || e.Why != want {
		t.Fatalf("replacement to %q: %q, want %q", e.To, e.Why, want)
	}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/drvcheck/drvcheck/internal/plan"
	"github.com/drvcheck/drvcheck/internal/testcluster"
)

// The gang scenarios of the fidelity suite (docs/fidelity.md): drvcheck
// says whether a gang's pods fit at once, on the whole fleet (DRV015) and
// with a driver rollout's window of nodes out (DRV029, plan --all's
// displaced); Kubernetes' own gang scheduler says it on the control plane.
// Since 1.35 kube-scheduler places a PodGroup's pods all together or not
// at all (the GangScheduling plugin, behind the GenericWorkload gate,
// pkg/scheduler/framework/plugins/gangscheduling at v1.37.2), and writes
// how many it could place in the PodGroup's PodGroupInitiallyScheduled
// condition ("minCount (4) cannot be satisfied: 3 scheduled, 0
// remaining"). No gang controller runs: the test expands each gang into
// its pods and one PodGroup whose minCount is what must run together (a
// Volcano Job's minAvailable, else every pod), as drvcheck defines the
// gang (docs/input.md, gang). The window's nodes are cordoned, as the
// upgrade library cordons the nodes it takes out.

// gangScenario is a fleet of fixture files with one gang in it.
type gangScenario struct {
	name  string
	files []string // under testdata/gpu-requests
	// more is YAML of the scenario's own beside the files: nodes, a gang,
	// pods already bound to nodes (spec.nodeName), which run first.
	more string
	// out are the nodes a rollout's window takes out at once, worked out by
	// hand from the ClusterPolicy among the files (maxUnavailable against
	// the managed nodes, bounded by maxParallelUpgrades): the admitted nodes
	// of most room. Empty when no rollout is given.
	out []string
}

var gangScenarios = []gangScenario{
	{name: "a LeaderWorkerSet on a pool too small", files: []string{"lws-vllm.yaml"}},
	{name: "a LeaderWorkerSet that fills its pool with one node out",
		files: []string{"lws-vllm.yaml", "lws-vllm-room.yaml", "clusterpolicy-rollout.yaml"}, out: []string{"h100-0"}},
	{name: "a LeaderWorkerSet with room for one node out",
		files: []string{"lws-vllm.yaml", "lws-vllm-room.yaml", "clusterpolicy-rollout.yaml"}, out: []string{"h100-0"},
		more: "apiVersion: v1\nkind: Node\nmetadata:\n  name: h100-4\n  labels: {nvidia.com/gpu.present: \"true\", pool: vllm}\nstatus: {allocatable: {nvidia.com/gpu: \"8\", pods: \"110\"}}\n"},
	{name: "a gang of MIG slices beside a bound pod with one node out",
		files: []string{"clusterpolicy-rollout.yaml"}, out: []string{"a100-0"}, more: migGang},
	{name: "a PyTorchJob whose two large nodes go out together in round 2",
		files: []string{"gang-rounds.yaml"}, out: []string{"g2", "g3"}},
	{name: "a PyTorchJob that no round in name order takes two large nodes from",
		files: []string{"gang-rounds-split.yaml"}, out: []string{"g0", "g2"}},
	{name: "a PyTorchJob on a node of 2 GPUs", files: []string{"pytorchjob-mnist.yaml"}},
	{name: "a PyTorchJob on a node of 1 GPU", files: []string{"pytorchjob-mnist-small.yaml"}},
	{name: "a Volcano Job whose minAvailable needs both GPU workers", files: []string{"volcano-mindspore.yaml"}},
	{name: "a Volcano Job whose minAvailable needs one", files: []string{"volcano-minavailable.yaml"}},
}

// migGang: two A100 80GB nodes of seven 1g.10gb slices each (the mixed
// strategy's resource, as the MIG fidelity scenario has it), a bound pod
// taking 4 slices of a100-1, and a PyTorchJob of a Master and 3 Workers of
// 2 slices each: 8 slices, which fit 7 + 3 but not the 3 left when
// a100-0, the roomiest, is out.
const migGang = `apiVersion: v1
kind: Node
metadata:
  name: a100-0
  labels: {nvidia.com/gpu.present: "true", nvidia.com/mig.strategy: mixed}
status: {allocatable: {nvidia.com/mig-1g.10gb: "7", pods: "110"}}
---
apiVersion: v1
kind: Node
metadata:
  name: a100-1
  labels: {nvidia.com/gpu.present: "true", nvidia.com/mig.strategy: mixed}
status: {allocatable: {nvidia.com/mig-1g.10gb: "7", pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: notebook, namespace: default}
spec:
  nodeName: a100-1
  terminationGracePeriodSeconds: 0
  containers: [{name: c, image: registry.example.com/notebook:1, resources: {limits: {nvidia.com/mig-1g.10gb: 4}}}]
---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: finetune, namespace: default}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers: [{name: pytorch, image: registry.example.com/finetune:1, resources: {limits: {nvidia.com/mig-1g.10gb: 2}}}]
    Worker:
      replicas: 3
      template:
        spec:
          containers: [{name: pytorch, image: registry.example.com/finetune:1, resources: {limits: {nvidia.com/mig-1g.10gb: 2}}}]
`

// predictedGang is what drvcheck says of a scenario's gang.
type predictedGang struct {
	object       string
	must, placed int
	fits         bool
	// rollout is gang.rollout: how many fit with the window out at worst
	// (out nodes); nil without a rollout.
	rollout              *struct{ Out, Placed int }
	drv015, drv029, plan bool // a finding of each, and plan --all's displaced
	drv015Msg, drv029Msg string
	// displaced is plan --all's entry of the gang, nil for none; rounds
	// the nodes each round of the rollout (in name order) takes out, when
	// every node is upgraded and uncordoned before the next round.
	displaced *plan.Displaced
	rounds    [][]string
}

func TestFidelityGangs(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{
		FeatureGates: []string{"GenericWorkload=true"},
		APIs:         []string{"scheduling.k8s.io/v1beta1=true"},
	})
	for _, sc := range gangScenarios {
		t.Run(sc.name, func(t *testing.T) { runGangScenario(t, c, sc) })
	}
}

func runGangScenario(t *testing.T, c *testcluster.Cluster, sc gangScenario) {
	var files []string
	for _, f := range sc.files {
		files = append(files, gpuReqFile(f))
	}
	dir := t.TempDir()
	if sc.more != "" {
		files = append(files, filepath.Join(dir, "scenario.yaml"))
		writeFile(t, files[len(files)-1], sc.more)
	}
	want := predictGang(t, files, len(sc.out))
	nodes, bound, gang := fixtureObjects(t, files)
	pods, minCount := gangPods(t, gang)
	extra := minCount - want.must // pods that must run but ask for no GPU
	applyObjects(t, c, dir, "nodes", nodes)
	waitNodesReady(t, c, len(nodes))
	defer cleanGangScenario(t, c)
	if len(bound) > 0 {
		applyObjects(t, c, dir, "bound", bound)
		waitGangBound(t, c, "default", len(bound))
	}

	fleet := placeGang(t, c, dir, "fleet", pods, minCount)
	fits := fleet.fits
	t.Logf("%s: drvcheck %d of %d, fits %v; the gang scheduler: %s", want.object, want.placed, want.must, want.fits, fleet)
	if d := fleet.differs(want.placed, want.must, extra); d != "" {
		t.Errorf("the whole fleet: %s", d)
	}
	if want.drv015 == fits {
		t.Errorf("DRV015 %v where the gang scheduler fits=%v: %s", want.drv015, fits, want.drv015Msg)
	}
	if len(sc.out) == 0 || !fits {
		if want.drv029 || want.plan {
			t.Errorf("DRV029 %v, plan --all displaced %v, with no window to judge: %s", want.drv029, want.plan, want.drv029Msg)
		}
		return
	}
	for _, node := range sc.out {
		kubectl(t, c, "cordon", node)
	}
	window := placeGang(t, c, dir, "window", pods, minCount)
	fitsW, placedW := window.fits, want.rollout.Placed
	t.Logf("with %v out: drvcheck %d of %d; the gang scheduler: %s", sc.out, placedW, want.must, window)
	if d := window.differs(placedW, want.must, extra); d != "" {
		t.Errorf("with %v out: %s", sc.out, d)
	}
	if want.drv029 == fitsW || want.plan == fitsW {
		t.Errorf("with %v out the gang scheduler fits=%v, but DRV029 %v and plan --all displaced %v: %s", sc.out, fitsW, want.drv029, want.plan, want.drv029Msg)
	}
	for _, node := range sc.out {
		kubectl(t, c, "uncordon", node)
	}
	compareRounds(t, c, dir, want, pods, minCount, extra)
}

// compareRounds holds plan --all's rounds to the gang scheduler: with
// each round's nodes cordoned, the gang fits there unless plan --all
// says the round displaces it, and then with the count it gives. A
// rollout whose nodes all upgrade is compared round by round; another
// at the first round plan --all names (its nodes then out).
func compareRounds(t *testing.T, c *testcluster.Cluster, dir string, want predictedGang, pods []map[string]any, minCount, extra int) {
	t.Helper()
	d := want.displaced
	rounds := want.rounds
	if rounds == nil {
		if d == nil || d.First == nil {
			return
		}
		rounds = make([][]string, d.First.Round)
		rounds[d.First.Round-1] = d.First.Out
	}
	displacedIn := 0
	for i, out := range rounds {
		if len(out) == 0 {
			continue
		}
		for _, node := range out {
			kubectl(t, c, "cordon", node)
		}
		a := placeGang(t, c, dir, fmt.Sprintf("round%d", i+1), pods, minCount)
		for _, node := range out {
			kubectl(t, c, "uncordon", node)
		}
		first := d != nil && d.First != nil && d.First.Round == i+1
		t.Logf("round %d, %v out: the gang scheduler: %s; plan --all's first round %v", i+1, out, a, first)
		if !a.fits {
			displacedIn++
		}
		switch {
		case first:
			if diff := a.differs(d.First.Placed, want.must, extra); diff != "" || a.fits {
				t.Errorf("round %d, %v out: plan --all places %d of %d: %s", i+1, out, d.First.Placed, want.must, diff)
			}
		case !a.fits && (d == nil || d.First == nil || d.First.Round > i+1):
			t.Errorf("round %d, %v out: the gang scheduler places it not (%s), plan --all names no round before %v", i+1, out, a, d)
		}
	}
	if want.rounds != nil && d != nil && d.First != nil && d.Rounds != displacedIn {
		t.Errorf("plan --all: %d round(s) displace the gang, the gang scheduler: %d", d.Rounds, displacedIn)
	}
}

// predictGang reads the one gang of the files from drvcheck: its input
// document's gang, check's DRV015 and DRV029 on it, and plan --all's
// displaced when a rollout is given (k nodes out).
func predictGang(t *testing.T, files []string, k int) predictedGang {
	t.Helper()
	matrix := []string{"--matrix", gpuReqFile("driver-580.95.05.csv")} // the driver image exists: nothing is asked of a registry
	r := drv(t, append(append([]string{"input"}, matrix...), files...)...)
	var doc struct {
		Workloads []struct {
			Object struct{ Kind, Namespace, Name string }
			Gang   *struct {
				Must, Placed int
				Fits         bool
				Rollout      *struct{ Out, Placed int }
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("input: %v\n%s", err, r.stderr)
	}
	var p predictedGang
	for _, w := range doc.Workloads {
		if w.Gang == nil {
			continue
		}
		if p.object != "" {
			t.Fatalf("more than one gang: %s and %s/%s/%s", p.object, w.Object.Kind, w.Object.Namespace, w.Object.Name)
		}
		p.object = w.Object.Kind + "/" + w.Object.Namespace + "/" + w.Object.Name
		p.must, p.placed, p.fits, p.rollout = w.Gang.Must, w.Gang.Placed, w.Gang.Fits, w.Gang.Rollout
	}
	if p.object == "" {
		t.Fatalf("drvcheck finds no gang in %v", files)
	}
	if p.fits {
		p.placed = p.must
	}
	if k > 0 && p.fits && (p.rollout == nil || p.rollout.Out != k) {
		t.Fatalf("%d nodes out by hand, but drvcheck's rollout takes out %+v", k, p.rollout)
	}
	checked := drvJSON(t, append(append([]string{"check"}, matrix...), files...)...)
	for _, f := range checked.Findings {
		if f.Object.String() != p.object {
			continue
		}
		switch f.Rule {
		case "DRV015":
			p.drv015, p.drv015Msg = true, f.Message
		case "DRV029":
			p.drv029, p.drv029Msg = true, f.Message
		}
	}
	if k == 0 {
		return p
	}
	r = drv(t, append(append([]string{"plan", "--all", "--driver", "580.95.05", "-o", "json"}, matrix...), files...)...)
	var rolled plan.Rolling
	if err := json.Unmarshal([]byte(r.stdout), &rolled); err != nil {
		t.Fatalf("plan --all: %v\n%s", err, r.stderr)
	}
	for i, d := range rolled.Displaced {
		if d.Object == p.object {
			p.plan, p.displaced = true, &rolled.Displaced[i]
		}
	}
	p.rounds = roundsOf(rolled.Nodes)
	return p
}

// roundsOf are the nodes each round takes out, when every node the
// rollout rolls is upgraded (and so uncordoned before the next round
// starts); nil otherwise.
func roundsOf(nodes []plan.NodeOutcome) [][]string {
	var rounds [][]string
	for _, o := range nodes {
		if !o.Rolled() {
			continue
		}
		if o.Outcome != plan.Upgraded || o.Round < 1 {
			return nil
		}
		for len(rounds) < o.Round {
			rounds = append(rounds, nil)
		}
		rounds[o.Round-1] = append(rounds[o.Round-1], o.Node)
	}
	return rounds
}

// fixtureObjects reads the files' Nodes, as kwok's fake nodes, their Pods
// (bound to a node), and their one gang object.
func fixtureObjects(t *testing.T, files []string) (nodes, bound []map[string]any, gang map[string]any) {
	t.Helper()
	for _, f := range files {
		for _, o := range readObjects(t, f) {
			switch o["kind"] {
			case "Node":
				nodes = append(nodes, fakeNode(o))
			case "Pod":
				bound = append(bound, o)
			case "LeaderWorkerSet", "PyTorchJob", "Job", "JobSet":
				gang = o
			}
		}
	}
	if gang == nil {
		t.Fatalf("no gang object in %v", files)
	}
	return nodes, bound, gang
}

// readObjects decodes a file's YAML documents, a List's items each.
func readObjects(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
		var o map[string]any
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if o == nil {
			continue
		}
		if o["kind"] == "List" {
			for _, item := range o["items"].([]any) {
				out = append(out, item.(map[string]any))
			}
			continue
		}
		out = append(out, o)
	}
	return out
}

// fakeNode is a fixture's Node for kwok to run: its labels and
// allocatable as written, its capacity the same; CPU and memory, which
// drvcheck does not model, ample when the fixture lists none.
func fakeNode(o map[string]any) map[string]any {
	meta := o["metadata"].(map[string]any)
	status, _ := o["status"].(map[string]any)
	alloc := map[string]any{"cpu": "64", "memory": "512Gi"}
	if a, ok := status["allocatable"].(map[string]any); ok {
		maps.Copy(alloc, a)
	}
	return map[string]any{
		"apiVersion": "v1", "kind": "Node",
		"metadata": map[string]any{"name": meta["name"], "labels": meta["labels"],
			"annotations": map[string]any{"kwok.x-k8s.io/node": "fake"}},
		"status": map[string]any{"allocatable": alloc, "capacity": alloc},
	}
}

// gangPods expands a gang object into its pods, as its controller makes
// them, and says how many must run together: a LeaderWorkerSet's replicas
// groups of a leader and size-1 workers, a PyTorchJob's replica specs, a
// Volcano Job's tasks (minAvailable of them together, all by default).
func gangPods(t *testing.T, o map[string]any) (pods []map[string]any, minCount int) {
	t.Helper()
	spec := o["spec"].(map[string]any)
	add := func(n int, template any) {
		for range n {
			pods = append(pods, template.(map[string]any))
		}
	}
	switch o["kind"] {
	case "LeaderWorkerSet":
		lwt := spec["leaderWorkerTemplate"].(map[string]any)
		leader, ok := lwt["leaderTemplate"]
		if !ok {
			leader = lwt["workerTemplate"]
		}
		for range intOr(spec["replicas"], 1) {
			add(1, leader)
			add(intOr(lwt["size"], 1)-1, lwt["workerTemplate"])
		}
	case "PyTorchJob":
		for _, role := range []string{"Master", "Worker"} {
			if rs, ok := spec["pytorchReplicaSpecs"].(map[string]any)[role].(map[string]any); ok {
				add(intOr(rs["replicas"], 1), rs["template"])
			}
		}
	case "Job": // batch.volcano.sh
		for _, task := range spec["tasks"].([]any) {
			task := task.(map[string]any)
			add(intOr(task["replicas"], 1), task["template"])
		}
	default:
		t.Fatalf("no expansion of %v", o["kind"])
	}
	return pods, intOr(spec["minAvailable"], len(pods))
}

func intOr(v any, def int) int {
	switch v := v.(type) {
	case float64:
		return int(v)
	case string:
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return def
}

// placeGang creates the gang's pods and PodGroup in a namespace of their
// own and waits for the gang scheduler's answer: whether minCount of them
// were placed together, else how many it could place. The pods are
// deleted again.
func placeGang(t *testing.T, c *testcluster.Cluster, dir, name string, templates []map[string]any, minCount int) gangAnswer {
	t.Helper()
	ns := "gang-" + name
	objs := []map[string]any{
		{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}},
		{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": map[string]any{"name": "gang", "namespace": ns},
			"spec": map[string]any{"schedulingPolicy": map[string]any{"gang": map[string]any{"minCount": minCount}}}},
	}
	for i, tmpl := range templates {
		spec := map[string]any{}
		for k, v := range tmpl["spec"].(map[string]any) {
			spec[k] = v
		}
		spec["schedulingGroup"] = map[string]any{"podGroupName": "gang"}
		spec["terminationGracePeriodSeconds"] = 0
		meta := map[string]any{"name": fmt.Sprintf("pod-%d", i), "namespace": ns}
		if m, ok := tmpl["metadata"].(map[string]any); ok && m["labels"] != nil {
			meta["labels"] = m["labels"]
		}
		objs = append(objs, map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec})
	}
	applyObjects(t, c, dir, ns, objs)
	var a gangAnswer
	waitFor(t, "the gang scheduler's answer on PodGroup "+ns+"/gang", func(ctx context.Context) (bool, error) {
		var pg struct {
			Status struct {
				Conditions []metav1.Condition
			}
		}
		if err := json.Unmarshal([]byte(kubectl(t, c, "-n", ns, "get", "podgroup", "gang", "-o", "json")), &pg); err != nil {
			return false, err
		}
		for _, cond := range pg.Status.Conditions {
			if cond.Type != "PodGroupInitiallyScheduled" {
				continue
			}
			if cond.Status == metav1.ConditionTrue {
				a.fits = true
				return true, nil
			}
			if m := unschedulableGang.FindStringSubmatch(cond.Message); m != nil {
				a.scheduled, _ = strconv.Atoi(m[1])
				a.remaining, _ = strconv.Atoi(m[2])
				return true, nil
			}
			return false, fmt.Errorf("condition %s: %s", cond.Reason, cond.Message)
		}
		return false, fmt.Errorf("no PodGroupInitiallyScheduled condition yet")
	})
	if a.fits { // every one of minCount bound, as the condition says
		waitGangBound(t, c, ns, minCount)
	}
	kubectl(t, c, "delete", "namespace", ns, "--wait=false")
	kubectl(t, c, "-n", ns, "delete", "pods", "--all", "--grace-period=0", "--force")
	waitFor(t, "namespace "+ns+" gone", func(ctx context.Context) (bool, error) {
		_, err := c.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return err != nil, nil
	})
	return a
}

// gangAnswer is the gang scheduler's: the gang placed, or how many of its
// pods it placed before it found that minCount cannot be reached
// (scheduled + remaining < minCount: it stops at the first pod that fits
// nowhere, so with pods remaining the count is a floor, not the most).
type gangAnswer struct {
	fits                 bool
	scheduled, remaining int
}

func (a gangAnswer) String() string {
	if a.fits {
		return "placed"
	}
	return fmt.Sprintf("%d scheduled, %d remaining", a.scheduled, a.remaining)
}

// differs says how drvcheck's count (placed of must GPU pods; extra pods
// without GPUs must run with them) disagrees with the scheduler's, or "".
func (a gangAnswer) differs(placed, must, extra int) string {
	switch {
	case a.fits != (placed >= must):
		return fmt.Sprintf("drvcheck places %d of %d, the gang scheduler: %s", placed, must, a)
	case a.fits:
		return ""
	case a.remaining == 0 && a.scheduled != placed+extra, a.scheduled > placed+extra:
		return fmt.Sprintf("drvcheck places %d of %d GPU pods (+%d without GPUs), the gang scheduler: %s", placed, must, extra, a)
	}
	return ""
}

// unschedulableGang is the gang scheduler's count (gangscheduling.go, the
// Unschedulable condition).
var unschedulableGang = regexp.MustCompile(`cannot be satisfied: (\d+) scheduled, (\d+) remaining`)

func waitGangBound(t *testing.T, c *testcluster.Cluster, ns string, n int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d pods of %s bound", n, ns), func(ctx context.Context) (bool, error) {
		pods, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		bound := 0
		for _, p := range pods.Items {
			if p.Spec.NodeName != "" {
				bound++
			}
		}
		return bound >= n, nil
	})
}

func applyObjects(t *testing.T, c *testcluster.Cluster, dir, name string, objs []map[string]any) {
	t.Helper()
	items := make([]any, len(objs))
	for i, o := range objs {
		items[i] = o
	}
	data, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name+".json")
	writeFile(t, p, string(data))
	kubectl(t, c, "apply", "-f", p)
}

// waitNodesReady waits for kwok to make every node Ready, and for the
// node lifecycle controller to lift its not-ready taint.
func waitNodesReady(t *testing.T, c *testcluster.Cluster, n int) {
	t.Helper()
	waitFor(t, "the nodes Ready and untainted", func(ctx context.Context) (bool, error) {
		nodes, err := c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		ready := 0
		for _, node := range nodes.Items {
			if nodeReady(&node) && len(node.Spec.Taints) == 0 {
				ready++
			}
		}
		return ready == n, nil
	})
}

func nodeReady(n *corev1.Node) bool {
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

// cleanGangScenario deletes the scenario's bound pods and nodes, for the
// next one.
func cleanGangScenario(t *testing.T, c *testcluster.Cluster) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	zero := int64(0)
	if err := c.Client.CoreV1().Pods("default").DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Client.CoreV1().Nodes().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the nodes gone", func(ctx context.Context) (bool, error) {
		nodes, err := c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		return err == nil && len(nodes.Items) == 0, err
	})
}

// TestGangAnswerDiffers holds the comparison to what it must catch.
func TestGangAnswerDiffers(t *testing.T) {
	for _, c := range []struct {
		a                   gangAnswer
		placed, must, extra int
		differs             bool
	}{
		{gangAnswer{fits: true}, 4, 4, 0, false},
		{gangAnswer{fits: true}, 3, 4, 0, true},                  // drvcheck says it does not fit
		{gangAnswer{scheduled: 3}, 4, 4, 0, true},                // drvcheck says it fits
		{gangAnswer{scheduled: 3}, 3, 4, 0, false},               // every pod tried: the same count
		{gangAnswer{scheduled: 2}, 3, 4, 0, true},                // every pod tried: another count
		{gangAnswer{scheduled: 2}, 1, 2, 1, false},               // one pod without GPUs placed too
		{gangAnswer{scheduled: 1, remaining: 2}, 2, 4, 0, false}, // stopped early: a floor
		{gangAnswer{scheduled: 3, remaining: 0}, 2, 4, 0, true},  // more than drvcheck places
		{gangAnswer{scheduled: 3, remaining: 1}, 2, 4, 0, true},  // a floor above drvcheck's count
	} {
		if got := c.a.differs(c.placed, c.must, c.extra) != ""; got != c.differs {
			t.Errorf("%s against %d of %d (+%d): differs %v, want %v", c.a, c.placed, c.must, c.extra, got, c.differs)
		}
	}
}

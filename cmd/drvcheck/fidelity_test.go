package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/drvcheck/drvcheck/internal/registry/registrytest"
	"github.com/drvcheck/drvcheck/internal/testcluster"
)

// The fidelity suite (docs/fidelity.md): each scenario is set up on the
// real control plane, drvcheck plan --all predicts the rollout from the
// cluster, then NVIDIA's upgrade library (hack/fidelity) rolls it for
// real and the nodes' final upgrade states are compared. A node drvcheck
// marks order-dependent may end otherwise, as long as the fleet's states
// add up to the same; every other node must end as predicted.

const (
	fidelityFrom = "550.90.07"
	fidelityTo   = "570.86.15"
)

// fnode is a GPU node of a scenario.
type fnode struct {
	name     string
	gpus     int
	notReady bool
	cordoned bool
	skip     bool
}

type fidelityScenario struct {
	name   string
	policy string // spec.driver.upgradePolicy, every field written
	nodes  []fnode
	// first is applied and settled before objects: pods that must land
	// before the others (a filler that takes a node's GPUs).
	first, objects string
}

// basePolicy is the chart's default policy with autoUpgrade on and short
// timeouts, so that a refused eviction fails within the test.
func basePolicy(extra string) string {
	return "autoUpgrade: true\nmaxParallelUpgrades: 1\nmaxUnavailable: 25%\npodDeletion: {force: false, deleteEmptyDir: false, timeoutSeconds: 8}\n" + extra
}

func gpuDeployment(name string, replicas, gpus int, extra string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s, namespace: ml}
spec:
  replicas: %[2]d
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec:
      terminationGracePeriodSeconds: 0
      nodeSelector: {nvidia.com/gpu.present: "true"%[4]s}
      containers: [{name: c, image: registry.example.com/%[1]s:1, resources: {limits: {nvidia.com/gpu: %[3]d}}}]
---
`, name, replicas, gpus, extra)
}

func budget(name, rule string) string {
	return fmt.Sprintf("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: %[1]s-pdb, namespace: ml}\nspec:\n  %[2]s\n  selector: {matchLabels: {app: %[1]s}}\n---\n", name, rule)
}

const cpuWeb = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ml}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 0
      containers: [{name: c, image: registry.example.com/web:1}]
---
`

func threeNodes(edit func(*fnode)) []fnode {
	ns := []fnode{{name: "g0", gpus: 2}, {name: "g1", gpus: 2}, {name: "g2", gpus: 2}}
	for i := range ns {
		edit(&ns[i])
	}
	return ns
}

func same(*fnode) {}

var fidelityScenarios = []fidelityScenario{
	{name: "default policy", policy: basePolicy(""), nodes: threeNodes(same),
		objects: gpuDeployment("trainer", 3, 1, "") + budget("trainer", "maxUnavailable: 1") + cpuWeb},
	{name: "drain enabled", policy: basePolicy("drain: {enable: true, force: true, deleteEmptyDir: true, timeoutSeconds: 8}"), nodes: threeNodes(same),
		objects: `apiVersion: v1
kind: Pod
metadata: {name: notebook, namespace: ml}
spec:
  nodeName: g1
  terminationGracePeriodSeconds: 0
  containers: [{name: c, image: registry.example.com/notebook:1, resources: {limits: {nvidia.com/gpu: 1}}}]
---
`},
	{name: "a budget that blocks GPU pods", policy: basePolicy(""), nodes: threeNodes(same),
		objects: gpuDeployment("trainer", 3, 1, "") + budget("trainer", "minAvailable: 3")},
	{name: "a budget that blocks only non-GPU pods", policy: basePolicy(""), nodes: threeNodes(same),
		objects: gpuDeployment("trainer", 3, 1, "") + cpuWeb + budget("web", "minAvailable: 2")},
	{name: "maxUnavailable used up by a NotReady node",
		policy: basePolicy(""), nodes: []fnode{{name: "g0", gpus: 2}, {name: "g1", gpus: 2}, {name: "g2", gpus: 2}, {name: "g3", gpus: 2, notReady: true}}},
	{name: "a node cordoned before the upgrade", policy: basePolicy(""),
		nodes: threeNodes(func(n *fnode) { n.cordoned = n.name == "g1" })},
	{name: "the skip label", policy: basePolicy(""), nodes: threeNodes(func(n *fnode) { n.skip = n.name == "g1" }),
		objects: gpuDeployment("trainer", 2, 1, "") + budget("trainer", "maxUnavailable: 1")},
	// g1's single GPU is taken, and both trainer pods sit on g0: once the
	// first is evicted its replacement fits nowhere, so the budget never
	// lets the second go. g1 is skipped, so the order cannot matter.
	{name: "no free GPU for a replacement", policy: basePolicy(""),
		nodes:   []fnode{{name: "g0", gpus: 2}, {name: "g1", gpus: 1, skip: true}},
		first:   gpuDeployment("filler", 1, 1, `, kubernetes.io/hostname: g1`),
		objects: gpuDeployment("trainer", 2, 1, "") + budget("trainer", "maxUnavailable: 1")},
}

func TestFidelityAgainstTheUpgradeLibrary(t *testing.T) {
	testcluster.Require(t)
	reconciler := fidelityReconciler(t)
	isolateDockerConfig(t, "{}")
	reg := registrytest.New(t)
	reg.Push(t, "nvidia/driver", fidelityTo+"-ubuntu22.04", fidelityFrom+"-ubuntu22.04")
	for _, sc := range fidelityScenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel() // each on its own control plane; they mostly wait
			predicted, actual := runScenario(t, reconciler, reg.Host, sc)
			if diff := compareRollout(predicted, actual); diff != "" {
				t.Errorf("drvcheck and the upgrade library differ:\n%s", diff)
			}
		})
	}
}

// fidelityReconciler builds (or reuses) hack/fidelity's reconciler.
func fidelityReconciler(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join("..", "..", "hack", "fidelity", "build.sh"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hack/fidelity/build.sh: %v\n%s", err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// predictedNode is a node of plan --all -o json.
type predictedNode struct {
	Node           string `json:"node"`
	Outcome        string `json:"outcome"`
	State          string `json:"state"`
	OrderDependent bool   `json:"order_dependent"`
}

func runScenario(t *testing.T, reconciler, registry string, sc fidelityScenario) ([]predictedNode, map[string]string) {
	c := testcluster.Start(t, testcluster.Options{})
	dir := t.TempDir()
	apply := func(name, yaml string) {
		if strings.TrimSpace(yaml) == "" {
			return
		}
		p := filepath.Join(dir, name+".yaml")
		writeFile(t, p, yaml)
		kubectl(t, c, "apply", "-f", p)
	}
	kubectl(t, c, "apply", "-f", opFile("crds.yaml"))
	kubectl(t, c, "wait", "--for=condition=established", "--timeout=60s", "crd/clusterpolicies.nvidia.com")
	apply("setup", "apiVersion: v1\nkind: Namespace\nmetadata: {name: gpu-operator}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ml}\n---\n"+
		clusterPolicy(registry, sc.policy)+fidelityNodes(sc.nodes)+operatorDaemonSets(fidelityFrom))
	setNodeStates(t, c, sc.nodes)
	waitSettled(t, c, sc.nodes)
	apply("first", sc.first)
	waitSettled(t, c, sc.nodes)
	apply("objects", sc.objects)
	waitSettled(t, c, sc.nodes)

	r := drv(t, "plan", "--all", "--driver", fidelityTo, "--kubeconfig="+c.Kubeconfig, "--cache-dir="+t.TempDir(), "-o", "json")
	if r.code == exitError {
		t.Fatalf("plan --all: %s", r.stderr)
	}
	var plan struct{ Nodes []predictedNode }
	if err := json.Unmarshal([]byte(r.stdout), &plan); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}

	// The new driver: the DaemonSet's template changes, its pods (OnDelete)
	// are out of date, and the library takes over.
	kubectl(t, c, "-n", "gpu-operator", "patch", "daemonset", "nvidia-driver-daemonset", "--type=merge",
		"-p", `{"spec":{"template":{"metadata":{"annotations":{"driver-version":"`+fidelityTo+`"}}}}}`)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, reconciler, "--kubeconfig="+c.Kubeconfig)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reconcile: %v\n%s", err, stderr.String())
	}
	var actual struct{ Nodes map[string]string }
	if err := json.Unmarshal(out, &actual); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("drvcheck: %+v\nlibrary: %v", plan.Nodes, actual.Nodes)
	return plan.Nodes, actual.Nodes
}

// TestCompareRollout holds the comparison to what it must catch.
func TestCompareRollout(t *testing.T) {
	predicted := []predictedNode{
		{Node: "g0", Outcome: "failed", State: "upgrade-failed", OrderDependent: true},
		{Node: "g1", Outcome: "not-started", State: "upgrade-required", OrderDependent: true},
		{Node: "g2", Outcome: "upgraded", State: "upgrade-done"},
	}
	if d := compareRollout(predicted, map[string]string{"g0": "upgrade-required", "g1": "upgrade-failed", "g2": "upgrade-done"}); d != "" {
		t.Errorf("order-dependent nodes swapped: %s", d)
	}
	for actual, want := range map[string]string{
		`{"g0": "upgrade-failed", "g1": "upgrade-required", "g2": "upgrade-failed"}`: "g2: drvcheck says upgrade-done (upgraded), the library ends in upgrade-failed",
		`{"g0": "upgrade-failed", "g1": "upgrade-failed", "g2": "upgrade-done"}`:     "states of the fleet",
		`{"g0": "upgrade-failed", "g1": "upgrade-required"}`:                         "g2: the library does not manage it",
	} {
		var states map[string]string
		if err := json.Unmarshal([]byte(actual), &states); err != nil {
			t.Fatal(err)
		}
		if d := compareRollout(predicted, states); !strings.Contains(d, want) {
			t.Errorf("%s: %q, want %q", actual, d, want)
		}
	}
}

// compareRollout names every difference: a node not order-dependent that
// ends elsewhere, and a fleet whose states do not add up the same.
func compareRollout(predicted []predictedNode, actual map[string]string) string {
	var diffs, want, got []string
	for _, p := range predicted {
		a, ok := actual[p.Node]
		if !ok {
			diffs = append(diffs, p.Node+": the library does not manage it")
			continue
		}
		want, got = append(want, p.State), append(got, a)
		if !p.OrderDependent && a != p.State {
			diffs = append(diffs, fmt.Sprintf("%s: drvcheck says %s (%s), the library ends in %s", p.Node, p.State, p.Outcome, a))
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		diffs = append(diffs, fmt.Sprintf("states of the fleet: drvcheck %v, the library %v", want, got))
	}
	return strings.Join(diffs, "\n")
}

func clusterPolicy(registry, policy string) string {
	indented := "      " + strings.ReplaceAll(strings.TrimSpace(policy), "\n", "\n      ")
	return fmt.Sprintf(`apiVersion: nvidia.com/v1
kind: ClusterPolicy
metadata: {name: cluster-policy}
spec:
  driver:
    repository: %s/nvidia
    image: driver
    version: %s
    upgradePolicy:
%s
---
`, registry, fidelityFrom, indented)
}

func fidelityNodes(nodes []fnode) string {
	var b strings.Builder
	for _, n := range nodes {
		annotations := "kwok.x-k8s.io/node: fake"
		if n.notReady {
			annotations = "drvcheck.io/fidelity: not-ready" // no kwok: no kubelet keeps it Ready
		}
		skip := ""
		if n.skip {
			skip = "\n    nvidia.com/gpu-driver-upgrade.skip: \"true\""
		}
		fmt.Fprintf(&b, `apiVersion: v1
kind: Node
metadata:
  name: %[1]s
  annotations: {%[2]s}
  labels:
    kubernetes.io/hostname: %[1]s
    nvidia.com/gpu.present: "true"
    nvidia.com/gpu.deploy.driver: "true"
    nvidia.com/cuda.driver-version.major: "550"
    nvidia.com/cuda.driver-version.minor: "90"
    nvidia.com/cuda.driver-version.revision: "07"
    feature.node.kubernetes.io/kernel-version.full: 5.15.0-119-generic
    feature.node.kubernetes.io/system-os_release.ID: ubuntu
    feature.node.kubernetes.io/system-os_release.VERSION_ID: "22.04"%[4]s
spec:
  unschedulable: %[5]t
status:
  allocatable: {cpu: "64", memory: 512Gi, pods: "110", nvidia.com/gpu: "%[3]d"}
  capacity: {cpu: "64", memory: 512Gi, pods: "110", nvidia.com/gpu: "%[3]d"}
---
`, n.name, annotations, n.gpus, skip, n.cordoned)
	}
	return b.String()
}

// operatorDaemonSets are the operator's driver DaemonSet (OnDelete, as
// the operator makes it) and its validator, on every managed node.
func operatorDaemonSets(version string) string {
	ds := func(app, image string) string {
		return fmt.Sprintf(`apiVersion: apps/v1
kind: DaemonSet
metadata: {name: %[1]s, namespace: gpu-operator, labels: {app: %[1]s}}
spec:
  updateStrategy: {type: OnDelete}
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}, annotations: {driver-version: "%[3]s"}}
    spec:
      terminationGracePeriodSeconds: 0
      nodeSelector: {nvidia.com/gpu.deploy.driver: "true"}
      tolerations: [{operator: Exists}]
      containers: [{name: c, image: %[2]s}]
---
`, app, image, version)
	}
	return ds("nvidia-driver-daemonset", "nvcr.io/nvidia/driver:"+version+"-ubuntu22.04") +
		ds("nvidia-operator-validator", "nvcr.io/nvidia/gpu-operator-validator:v25.10.1")
}

// setNodeStates makes the NotReady nodes say so: without a kubelet a node
// has no Ready condition, which the library takes as Ready.
func setNodeStates(t *testing.T, c *testcluster.Cluster, nodes []fnode) {
	t.Helper()
	for _, n := range nodes {
		if !n.notReady {
			continue
		}
		now := metav1.Now().UTC().Format(time.RFC3339)
		kubectl(t, c, "patch", "node", n.name, "--subresource=status", "--type=merge", "-p",
			`{"status":{"conditions":[{"type":"Ready","status":"False","reason":"KubeletNotReady","lastHeartbeatTime":"`+now+`","lastTransitionTime":"`+now+`"}]}}`)
	}
}

// waitSettled waits until every pod on a Ready node runs and is Ready,
// every pod is bound (or on a NotReady node), and every budget's status
// has caught up with its pods.
func waitSettled(t *testing.T, c *testcluster.Cluster, nodes []fnode) {
	t.Helper()
	notReady := map[string]bool{}
	for _, n := range nodes {
		notReady[n.name] = n.notReady
	}
	waitFor(t, "the scenario's pods and budgets", func(ctx context.Context) (bool, error) {
		pods, err := c.Client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, p := range pods.Items {
			if p.Spec.NodeName == "" || !notReady[p.Spec.NodeName] && !podReady(&p) {
				return false, nil
			}
		}
		pdbs, err := c.Client.PolicyV1().PodDisruptionBudgets("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, b := range pdbs.Items {
			if b.Status.ObservedGeneration < b.Generation || b.Status.ExpectedPods == 0 || b.Status.CurrentHealthy != b.Status.ExpectedPods {
				return false, nil
			}
		}
		return true, nil
	})
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

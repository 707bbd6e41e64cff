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

	"github.com/drvcheck/drvcheck/internal/operator/change"
	"github.com/drvcheck/drvcheck/internal/registry/registrytest"
	"github.com/drvcheck/drvcheck/internal/testcluster"
	"github.com/drvcheck/drvcheck/policy"
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
	name string
	gpus int
	// mig, when set, is what the node offers instead of whole GPUs: a MIG
	// resource and its count, as the device plugin advertises them under
	// the mixed strategy (nvidia.com/mig-1g.10gb: 7).
	mig      string
	notReady bool
	cordoned bool
	skip     bool
	// state is an upgrade state an earlier rollout left, labelled once the
	// scenario's pods run; cordon cordons the node then, as the library
	// does from cordon-required on.
	state  string
	cordon bool
	// taint is added once the scenario's pods run, as key=value:effect.
	taint string
}

type fidelityScenario struct {
	name   string
	policy string // spec.driver.upgradePolicy, every field written
	nodes  []fnode
	// first is applied and settled before objects: pods that must land
	// before the others (a filler that takes a node's GPUs).
	first, objects string
	// driverTolerations are the driver DaemonSet's (flow YAML); it
	// tolerates every taint when unset.
	driverTolerations string
	// scanSays is what some finding of scan must say, when set.
	scanSays string
	// change is what changes in the driver DaemonSet's template, as the
	// operator would render it: the driver version (""), only a label
	// (changeLabel), or only the driver manager (changeManager). The
	// driver version is predicted with plan --all --driver before the
	// change; the others with plan --all after it, from the template.
	change string
}

// Template changes of a scenario, and the DRIVER_CONFIG_DIGEST the
// operator gives each (internal/config/driver_config_digest.go at
// v26.7.0): a label is not in it (transforms_test.go:4828-4889), the
// driver's and the driver manager's images are (:81-86).
const (
	changeLabel   = "label"
	changeManager = "manager"
	fromManager   = "v0.12.0"
	toManager     = "v0.12.1"
)

// fidelityLibrary is a release of the upgrade library and the GPU
// Operator release that vendors it.
type fidelityLibrary struct{ name, module, operator string }

var fidelityLibraries = []fidelityLibrary{
	{"v25", "v0.0.0-20250311214045-7d667fbaa7ac", "v25.3.0"},
	{"v26", "v0.0.0-20260629200812-d720f2557494", "v26.7.0"},
}

// configDigest stands for the operator's hash of a driver pod's
// configuration: equal exactly when the driver and manager images are.
func configDigest(driver, manager string) string { return driver + "/" + manager }

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

// spreadDeployment is gpuDeployment with one pod per node (required
// hostname anti-affinity).
func spreadDeployment(name string, replicas int) string {
	return strings.Replace(gpuDeployment(name, replicas, 1, ""), "      containers:", fmt.Sprintf(`      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: %s}}}
      containers:`, name), 1)
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
	return nodes(3, edit)
}

func nodes(n int, edit func(*fnode)) []fnode {
	var ns []fnode
	for i := range n {
		ns = append(ns, fnode{name: fmt.Sprintf("g%d", i), gpus: 2})
	}
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
	// Issue 37's counts: a pod of 8 GPUs needs a whole node. g1 and g2
	// each lend one GPU to a filler, so when g0 is cordoned its trainer's
	// replacement fits nowhere (Insufficient nvidia.com/gpu) and stays
	// Pending through g0's upgrade; the budget allows the one eviction, so
	// g0 upgrades all the same. g1 and g2 are skipped so that the order
	// cannot matter.
	{name: "a replacement that needs a whole node", policy: basePolicy(""),
		nodes: []fnode{{name: "g0", gpus: 8}, {name: "g1", gpus: 8, skip: true}, {name: "g2", gpus: 8, skip: true}},
		first: strings.Replace(gpuDeployment("filler", 2, 1, ""), "      containers:", `      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [g1, g2]}]}]
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: filler}}}
      containers:`, 1),
		objects: gpuDeployment("trainer", 1, 8, "") + budget("trainer", "maxUnavailable: 1")},
	// Issue 37's MIG resources: nodes partitioned all-1g.10gb under the
	// mixed strategy (7 per GPU). The trainer's two pods of three slices
	// sit on g0; g1 has four slices, three of them taken. Once one pod is
	// evicted its replacement fits nowhere (Insufficient
	// nvidia.com/mig-1g.10gb), so the budget never lets the second go.
	{name: "MIG slices for a replacement", policy: basePolicy(""),
		nodes:   []fnode{{name: "g0", mig: `nvidia.com/mig-1g.10gb: "7"`}, {name: "g1", mig: `nvidia.com/mig-1g.10gb: "4"`, skip: true}},
		first:   strings.Replace(gpuDeployment("filler", 1, 3, `, kubernetes.io/hostname: g1`), "nvidia.com/gpu:", "nvidia.com/mig-1g.10gb:", 1),
		objects: strings.Replace(gpuDeployment("trainer", 2, 3, ""), "nvidia.com/gpu:", "nvidia.com/mig-1g.10gb:", 1) + budget("trainer", "maxUnavailable: 1")},
	// An earlier rollout left g0 upgrade-failed (and someone uncordoned
	// it): its driver pod is out of date, so it stays failed and holds the
	// only slot (issue 25's first case).
	{name: "a node already upgrade-failed", policy: basePolicy(""),
		nodes:   nodes(4, func(n *fnode) { n.state = map[bool]string{true: "upgrade-failed"}[n.name == "g0"] }),
		objects: cpuWeb},
	// g3 has no kubelet: a window that lets every node start lets it start
	// too, and its new driver pod never runs (issue 25's second case).
	{name: "a NotReady node under a permissive window",
		policy: "autoUpgrade: true\nmaxParallelUpgrades: 0\nmaxUnavailable: 100%\npodDeletion: {force: false, deleteEmptyDir: false, timeoutSeconds: 8}\n",
		nodes:  []fnode{{name: "g0", gpus: 2}, {name: "g1", gpus: 2}, {name: "g2", gpus: 2}, {name: "g3", gpus: 2, notReady: true}}},
	// g1 was left in drain-required, cordoned, with a trainer pod its
	// budget will not let go: the drain fails, and g1's slot stays held.
	{name: "a node mid-upgrade whose drain a budget blocks",
		policy: basePolicy("drain: {enable: true, force: true, deleteEmptyDir: true, timeoutSeconds: 8}"),
		nodes: threeNodes(func(n *fnode) {
			n.state, n.cordon = map[bool]string{true: "drain-required"}[n.name == "g1"], n.name == "g1"
		}),
		objects: spreadDeployment("trainer", 3) + budget("trainer", "minAvailable: 3")},
	// Two trainer pods per node, spread by hostname with maxSkew 1. The
	// first pod deleted from a cordoned node cannot land on another (2
	// there against 1 left on the cordoned node), though GPUs are free;
	// the budget then refuses the second, and the node fails. Without the
	// spread the replacement would land, and every node upgrade.
	{name: "a workload spread by hostname", policy: basePolicy(""),
		nodes: nodes(3, func(n *fnode) { n.gpus = 4 }),
		objects: strings.Replace(gpuDeployment("trainer", 6, 1, ""), "      containers:", `      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: trainer}}}
      containers:`, 1) + budget("trainer", "maxUnavailable: 1")},
	// g1 gains a taint its driver DaemonSet does not tolerate after its
	// driver pod runs: the DaemonSet controller no longer counts g1 as
	// desired, the library's BuildState fails every reconcile, and no
	// node moves at all.
	{name: "a taint the driver DaemonSet does not tolerate", policy: basePolicy(""),
		nodes:             threeNodes(func(n *fnode) { n.taint = map[bool]string{true: "dedicated=ml:NoSchedule"}[n.name == "g1"] }),
		driverTolerations: "[{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]",
		scanSays:          "no driver upgrade can start in every managed node: the driver pod on g1 (dedicated=ml:NoSchedule)"},
	{name: "autoUpgrade off", policy: strings.Replace(basePolicy(""), "autoUpgrade: true", "autoUpgrade: false", 1), nodes: threeNodes(same),
		objects: gpuDeployment("trainer", 3, 1, "") + budget("trainer", "maxUnavailable: 1")},
	// Issue 27: a change of a label alone. From v26.7 (library
	// d720f2557494) the digest is unchanged, so each node is cordoned and
	// its driver pod restarted: the budget that refuses every eviction is
	// never asked, and every node upgrades. Before, the same change
	// deletes GPU pods, meets the budget, and the rollout halts.
	{name: "a label-only change", policy: basePolicy(""), nodes: threeNodes(same), change: changeLabel,
		objects: gpuDeployment("trainer", 3, 1, "") + budget("trainer", "minAvailable: 3")},
	// Only the driver manager changes: its image is in the digest, so the
	// rollout is a full one on either release, and the budget holds it.
	{name: "a driver-manager-only bump", policy: basePolicy(""), nodes: threeNodes(same), change: changeManager,
		objects: gpuDeployment("trainer", 3, 1, "") + budget("trainer", "minAvailable: 3")},
}

func TestFidelityAgainstTheUpgradeLibrary(t *testing.T) {
	testcluster.Require(t)
	isolateDockerConfig(t, "{}")
	reg := registrytest.New(t)
	reg.Push(t, "nvidia/driver", fidelityTo+"-ubuntu22.04", fidelityFrom+"-ubuntu22.04")
	for _, lib := range fidelityLibraries {
		reconciler := fidelityReconciler(t, lib.name)
		for _, sc := range fidelityScenarios {
			t.Run(lib.name+"/"+sc.name, func(t *testing.T) {
				t.Parallel() // each on its own control plane; they mostly wait
				runFidelityScenario(t, lib, reconciler, reg.Host, sc)
			})
		}
	}
}

// runFidelityScenario compares drvcheck's prediction with what the
// library does, and scan's DRV030 with the prediction.
func runFidelityScenario(t *testing.T, lib fidelityLibrary, reconciler, registry string, sc fidelityScenario) {
	predicted, checked, actual := runScenario(t, lib, reconciler, registry, sc)
	if diff := compareRollout(predicted, actual); diff != "" {
		t.Errorf("drvcheck and the upgrade library differ:\n%s", diff)
	}
	if diff := compareWithCheck(predicted, checked.byRule("DRV030")); diff != "" {
		t.Errorf("check and plan --all differ:\n%s", diff)
	}
	if sc.scanSays != "" && !slices.ContainsFunc(checked.Findings, func(f policy.Finding) bool { return strings.Contains(f.Message, sc.scanSays) }) {
		t.Errorf("no finding of scan says %q: %+v", sc.scanSays, checked.Findings)
	}
}

// fidelityReconciler builds (or reuses) hack/fidelity's reconciler
// against the library release lib (v25, v26).
func fidelityReconciler(t *testing.T, lib string) string {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join("..", "..", "hack", "fidelity", "build.sh"), lib)
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
	From           string `json:"from"`
	Note           string `json:"note"`
	Why            []struct{ What string }
	OrderDependent bool `json:"order_dependent"`
}

// runScenario sets the scenario up and returns what plan --all predicts,
// what scan (check of a live cluster) reports before the rollout, and the states
// the library leaves.
func runScenario(t *testing.T, lib fidelityLibrary, reconciler, registry string, sc fidelityScenario) ([]predictedNode, jsonReport, map[string]string) {
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
		clusterPolicy(registry, sc.policy)+fidelityNodes(sc.nodes)+operatorDaemonSets(fidelityFrom, sc.driverTolerations))
	setNodeStates(t, c, sc.nodes)
	waitSettled(t, c, sc.nodes)
	apply("first", sc.first)
	waitSettled(t, c, sc.nodes)
	apply("objects", sc.objects)
	waitSettled(t, c, sc.nodes)
	markStates(t, c, sc.nodes)

	checked := drvJSON(t, "scan", "--kubeconfig="+c.Kubeconfig, "--cache-dir="+t.TempDir())
	planArgs := []string{"plan", "--all", "--operator-version", lib.operator, "--kubeconfig=" + c.Kubeconfig, "--cache-dir=" + t.TempDir(), "-o", "json"}
	var plan struct{ Nodes []predictedNode }
	predict := func(args ...string) {
		r := drv(t, append(planArgs, args...)...)
		if r.code == exitError {
			t.Fatalf("plan --all: %s", r.stderr)
		}
		if err := json.Unmarshal([]byte(r.stdout), &plan); err != nil {
			t.Fatalf("%v\n%s", err, r.stdout)
		}
	}
	// The DaemonSet's template changes as the operator would render it;
	// its pods (OnDelete) are then out of date, and the library takes over.
	patch := func(p string) {
		kubectl(t, c, "-n", "gpu-operator", "patch", "daemonset", "nvidia-driver-daemonset", "--type=strategic", "-p", p)
	}
	switch sc.change {
	case "": // a new driver: predicted from --driver, then rendered
		predict("--driver", fidelityTo)
		patch(templatePatch(`"annotations":{"driver-version":"`+fidelityTo+`"}`, "", configDigest(fidelityTo, fromManager)))
	case changeLabel: // predicted from the template, once rendered
		patch(templatePatch(`"labels":{"team":"ml"}`, "", configDigest(fidelityFrom, fromManager)))
		predict()
	case changeManager:
		patch(templatePatch(`"annotations":{"manager-version":"`+toManager+`"}`, toManager, configDigest(fidelityFrom, toManager)))
		predict()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, reconciler, "--kubeconfig="+c.Kubeconfig)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reconcile: %v\n%s", err, stderr.String())
	}
	var actual struct {
		Nodes   map[string]string
		Error   string
		Library string
	}
	if err := json.Unmarshal(out, &actual); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if actual.Library != lib.module {
		t.Fatalf("the reconciler runs k8s-operator-libs %s, want %s", actual.Library, lib.module)
	}
	t.Logf("drvcheck: %+v\nlibrary %s: %v (last reconcile error: %q)", plan.Nodes, lib.name, actual.Nodes, actual.Error)
	return plan.Nodes, checked, actual.Nodes
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

// compareWithCheck names where check's DRV030 and plan --all disagree on
// the same cluster. Each node DRV030 reports is one plan --all read in
// the same state; one DRV030 fails (upgrade-failed) does not upgrade
// unless the plan says it recovers; one whose blockers DRV030 names
// (a budget that refuses) does not upgrade, and the plan names the same
// budget. Each node plan --all read mid-upgrade is one DRV030 reports.
func compareWithCheck(predicted []predictedNode, drv030 []policy.Finding) string {
	var diffs []string
	reported := map[string]bool{}
	byNode := map[string]predictedNode{}
	for _, p := range predicted {
		byNode[p.Node] = p
	}
	for _, f := range drv030 {
		reported[f.Node] = true
		p, ok := byNode[f.Node]
		switch {
		case !ok:
			diffs = append(diffs, f.Node+": DRV030 reports it, plan --all does not roll it")
			continue
		case p.From == "" || !strings.Contains(f.Message, " is in "+p.From+" "):
			diffs = append(diffs, fmt.Sprintf("%s: plan --all read its state as %q; DRV030 says %q", f.Node, p.From, f.Message))
		case f.Severity == policy.Error && p.Outcome == "upgraded" && !strings.Contains(p.Note, "recovers"):
			diffs = append(diffs, f.Node+": DRV030 says it failed, plan --all upgrades it without saying why")
		}
		for _, b := range refusingBudgets(f.Message) {
			if p.Outcome == "upgraded" || !slices.ContainsFunc(p.Why, func(w struct{ What string }) bool { return strings.HasPrefix(w.What, b+" ") }) {
				diffs = append(diffs, fmt.Sprintf("%s: DRV030 says %s holds it; plan --all says %s %+v", f.Node, b, p.Outcome, p.Why))
			}
		}
	}
	for _, p := range predicted {
		if p.From != "" && !reported[p.Node] {
			diffs = append(diffs, fmt.Sprintf("%s: plan --all read it in %s; DRV030 does not report it", p.Node, p.From))
		}
	}
	return strings.Join(diffs, "\n")
}

// TestCompareWithCheck holds the check-and-plan comparison to what it
// must catch.
func TestCompareWithCheck(t *testing.T) {
	failed := policy.Finding{Rule: "DRV030", Severity: policy.Error, Node: "g0",
		Message: "g0 is in upgrade-failed and failed: ...; trainer-pdb refuses evictions in podDeletion (x): lower it"}
	held := predictedNode{Node: "g0", Outcome: "failed", State: "upgrade-failed", From: "upgrade-failed",
		Why: []struct{ What string }{{What: "was already upgrade-failed"}, {What: "trainer-pdb refuses to evict ml/t-0"}}}
	if d := compareWithCheck([]predictedNode{held}, []policy.Finding{failed}); d != "" {
		t.Errorf("agreeing: %s", d)
	}
	upgraded := held
	upgraded.Outcome, upgraded.Why = "upgraded", nil
	fresh := held
	fresh.From = ""
	for name, c := range map[string]struct {
		plan []predictedNode
		want string
	}{
		"upgraded without a word": {[]predictedNode{upgraded}, "g0: DRV030 says it failed, plan --all upgrades it without saying why"},
		"state not read":          {[]predictedNode{fresh}, `g0: plan --all read its state as ""`},
		"budget not named":        {[]predictedNode{upgraded}, "g0: DRV030 says trainer-pdb holds it"},
		"not rolled":              {nil, "g0: DRV030 reports it, plan --all does not roll it"},
	} {
		if d := compareWithCheck(c.plan, []policy.Finding{failed}); !strings.Contains(d, c.want) {
			t.Errorf("%s: %q, want %q", name, d, c.want)
		}
	}
	if d := compareWithCheck([]predictedNode{held}, nil); !strings.Contains(d, "g0: plan --all read it in upgrade-failed; DRV030 does not report it") {
		t.Errorf("unreported: %q", d)
	}
}

// refusingBudgets are the budgets a DRV030 message says refuse evictions
// ("NAME refuses evictions in PHASE").
func refusingBudgets(message string) []string {
	var out []string
	for _, part := range strings.Split(message, "; ") {
		if i := strings.Index(part, " refuses evictions in "); i > 0 {
			out = append(out, part[:i])
		}
	}
	return out
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
		gpus := fmt.Sprintf("nvidia.com/gpu: \"%d\"", n.gpus)
		if n.mig != "" {
			gpus = n.mig
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
  allocatable: {cpu: "64", memory: 512Gi, pods: "110", %[3]s}
  capacity: {cpu: "64", memory: 512Gi, pods: "110", %[3]s}
---
`, n.name, annotations, gpus, skip, n.cordoned)
	}
	return b.String()
}

// operatorDaemonSets are the operator's driver DaemonSet (OnDelete, as
// the operator makes it) and its validator, on every managed node.
func operatorDaemonSets(version, driverTolerations string) string {
	if driverTolerations == "" {
		driverTolerations = "[{operator: Exists}]"
	}
	ds := func(app, image, tolerations, init string) string {
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
      tolerations: %[4]s%[5]s
      containers: [{name: c, image: %[2]s}]
---
`, app, image, version, tolerations, init)
	}
	// The driver manager, an init container that carries the digest as
	// the operator sets it (object_controls.go:1064-1067).
	manager := fmt.Sprintf(`
      initContainers:
      - name: k8s-driver-manager
        image: nvcr.io/nvidia/cloud-native/k8s-driver-manager:%s
        env: [{name: %s, value: "%s"}]`, fromManager, change.DriverConfigDigestEnv, configDigest(version, fromManager))
	return ds("nvidia-driver-daemonset", "nvcr.io/nvidia/driver:"+version+"-ubuntu22.04", driverTolerations, manager) +
		ds("nvidia-operator-validator", "nvcr.io/nvidia/gpu-operator-validator:v25.10.1", "[{operator: Exists}]", "")
}

// templatePatch is a strategic merge patch of the driver DaemonSet's
// template: metadata (a JSON member), the driver manager's image when
// manager is set, and the digest.
func templatePatch(metadata, manager, digest string) string {
	image := ""
	if manager != "" {
		image = `"image":"nvcr.io/nvidia/cloud-native/k8s-driver-manager:` + manager + `",`
	}
	return `{"spec":{"template":{"metadata":{` + metadata + `},"spec":{"initContainers":[{"name":"k8s-driver-manager",` + image +
		`"env":[{"name":"` + change.DriverConfigDigestEnv + `","value":"` + digest + `"}]}]}}}}`
}

// markStates labels the states an earlier rollout left, and cordons the
// nodes it held.
func markStates(t *testing.T, c *testcluster.Cluster, nodes []fnode) {
	t.Helper()
	for _, n := range nodes {
		if n.state != "" {
			kubectl(t, c, "label", "node", n.name, "--overwrite", "nvidia.com/gpu-driver-upgrade-state="+n.state)
		}
		if n.cordon {
			kubectl(t, c, "cordon", n.name)
		}
		if n.taint != "" {
			kubectl(t, c, "taint", "node", n.name, n.taint)
		}
	}
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
// has caught up with its pods. It allows four minutes, not waitFor's two:
// on a loaded machine the control plane once took longer (the NotReady
// scenario, in CI), and a timeout names what was still pending.
func waitSettled(t *testing.T, c *testcluster.Cluster, nodes []fnode) {
	t.Helper()
	notReady := map[string]bool{}
	for _, n := range nodes {
		notReady[n.name] = n.notReady
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	err := testcluster.Poll(ctx, "the scenario's pods and budgets", func(ctx context.Context) (bool, error) {
		pods, err := c.Client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, p := range pods.Items {
			if p.Spec.NodeName == "" || !notReady[p.Spec.NodeName] && !podReady(&p) {
				return false, fmt.Errorf("pod %s/%s (node %q, phase %s) is not bound and Ready", p.Namespace, p.Name, p.Spec.NodeName, p.Status.Phase)
			}
		}
		pdbs, err := c.Client.PolicyV1().PodDisruptionBudgets("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, b := range pdbs.Items {
			if b.Status.ObservedGeneration < b.Generation || b.Status.ExpectedPods == 0 || b.Status.CurrentHealthy != b.Status.ExpectedPods {
				return false, fmt.Errorf("budget %s/%s: %d of %d pods healthy, generation %d observed %d", b.Namespace, b.Name,
					b.Status.CurrentHealthy, b.Status.ExpectedPods, b.Generation, b.Status.ObservedGeneration)
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

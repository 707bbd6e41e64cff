package plan_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/operator"
	"github.com/drvcheck/drvcheck/internal/operator/change"
	"github.com/drvcheck/drvcheck/internal/placement"
	"github.com/drvcheck/drvcheck/internal/plan"
	"github.com/drvcheck/drvcheck/internal/runner"
)

func gpuNode(name string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Node
metadata:
  name: %s
  labels:
    kubernetes.io/hostname: %s
    nvidia.com/gpu.present: "true"
    nvidia.com/cuda.driver.major: "535"
    nvidia.com/cuda.driver.minor: "183"
    nvidia.com/cuda.driver.rev: "06"
    feature.node.kubernetes.io/kernel-version.full: 5.15.0-119-generic
    feature.node.kubernetes.io/system-os_release.ID: ubuntu
    feature.node.kubernetes.io/system-os_release.VERSION_ID: "22.04"`, name, name)
}

const web = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: x}]
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - topologyKey: kubernetes.io/hostname
            labelSelector: {matchLabels: {app: web}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web-pdb}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: web}}`

// fleet is three GPU nodes on 535 with a web Deployment across them, and
// what the rules say of them once every GPU node runs 550.90.07, against a
// matrix of rows (no matrix without rows).
func fleet(t *testing.T, rows ...string) (*placement.Model, plan.After) {
	return fleetUpgrading(t, nil, rows...)
}

// fleetUpgrading is fleet with only nodes relabelled (all when empty).
func fleetUpgrading(t *testing.T, nodes []string, rows ...string) (*placement.Model, plan.After) {
	return fleetOf(t, nodes, web, rows...)
}

// fleetWith is fleet with other workloads in place of web.
func fleetWith(t *testing.T, workloads string, rows ...string) (*placement.Model, plan.After) {
	return fleetOf(t, nil, workloads, rows...)
}

func fleetOf(t *testing.T, nodes []string, workloads string, rows ...string) (*placement.Model, plan.After) {
	return fleetUpgradingDocs(t, nodes, []string{gpuNode("n0"), gpuNode("n1"), gpuNode("n2"), workloads}, rows...)
}

func fleetOfDocs(t *testing.T, docs []string, rows ...string) (*placement.Model, plan.After) {
	return fleetUpgradingDocs(t, nil, docs, rows...)
}

func fleetUpgradingDocs(t *testing.T, nodes []string, docs []string, rows ...string) (*placement.Model, plan.After) {
	t.Helper()
	dir := t.TempDir()
	manifests := filepath.Join(dir, "fleet.yaml")
	src := strings.Join(docs, "\n---\n")
	if err := os.WriteFile(manifests, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := runner.Config{Paths: []string{manifests}, Upgrade: &runner.Upgrade{Driver: "550.90.07", Nodes: nodes}}
	if len(rows) > 0 {
		matrix := filepath.Join(dir, "matrix.csv")
		if err := os.WriteFile(matrix, []byte(catalog.MatrixHeader+"\n"+strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg.Matrix = []string{matrix}
	}
	inv, err := runner.Files(context.Background(), cfg)(false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := placement.New(inv)
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(context.Background(), cfg, runner.Files(context.Background(), cfg))
	if err != nil {
		t.Fatal(err)
	}
	return m, runner.AfterOf(res)
}

const row550 = "550,5.15.0-119-generic,ubuntu22.04"

func outcomes(r *plan.Rolling) string {
	var out []string
	for _, o := range r.Nodes {
		out = append(out, fmt.Sprintf("%s:%d:%s", o.Node, o.Round, o.Outcome))
	}
	return strings.Join(out, " ")
}

// manual is the lab's procedure, n nodes at a time.
func manual(n int) plan.RollingOptions {
	pol := operator.ManualPolicy(n, false, false)
	return plan.RollingOptions{Options: plan.Options{Driver: "550.90.07"}, Policy: func(string) (operator.Policy, string) { return pol, "all" }}
}

// operatorFlow is the GPU Operator's default policy, changed by edit.
func operatorFlow(edit func(*operator.Policy)) plan.RollingOptions {
	pol := operator.PolicyOf(nil, "test", true)
	if edit != nil {
		edit(&pol)
	}
	return plan.RollingOptions{Options: plan.Options{Driver: "550.90.07"}, Policy: func(string) (operator.Policy, string) { return pol, "all" }}
}

// One node at a time, each evicted replica waits Pending (anti-affinity,
// one per node) until its node is uncordoned, and the budget recovers
// before the next node: no stall.
func TestRollingOneAtATimePasses(t *testing.T) {
	m, after := fleet(t, row550)
	r, err := plan.Roll(m, after, manual(1))
	if err != nil {
		t.Fatal(err)
	}
	if r.Halts || outcomes(r) != "n0:1:upgraded n1:2:upgraded n2:3:upgraded" {
		t.Fatalf("%s, halts %v", outcomes(r), r.Halts)
	}
	if len(r.Nodes[0].Pending) != 1 {
		t.Fatalf("n0's replica should wait Pending until n0 is uncordoned: %+v", r.Nodes[0])
	}
}

// Two at a time in a sliding window: n0's replica cannot land while n1 is
// cordoned, so n1's eviction is refused at first; once n0 is done and
// uncordoned the replica lands there and n1's retried eviction passes.
// All three at once, the same happens node after node. (Fixed batches
// said n1 stalls: the drain retries, and the window slides.)
func TestRollingWindows(t *testing.T) {
	m, after := fleet(t, row550)
	r, err := plan.Roll(m, after, manual(2))
	if err != nil {
		t.Fatal(err)
	}
	if r.Halts || outcomes(r) != "n0:1:upgraded n1:1:upgraded n2:2:upgraded" {
		t.Fatalf("two at a time: %s", outcomes(r))
	}
	r, err = plan.Roll(m, after, manual(0))
	if err != nil {
		t.Fatal(err)
	}
	if r.Halts || outcomes(r) != "n0:1:upgraded n1:1:upgraded n2:1:upgraded" || len(r.Nodes[2].Evicted) != 1 {
		t.Fatalf("all at once: %s", outcomes(r))
	}
}

// A budget that never allows a disruption: the manual drain waits for
// good on the first node, which holds the only slot; the rollout halts.
func TestRollingStuckHalts(t *testing.T) {
	m, after := fleetWith(t, strings.Replace(web, "maxUnavailable: 1", "maxUnavailable: 0", 1), row550)
	r, err := plan.Roll(m, after, manual(1))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Halts || outcomes(r) != "n0:1:stuck n1:0:not-started n2:0:not-started" {
		t.Fatalf("%s", outcomes(r))
	}
	o := r.Nodes[0]
	if o.State != "drain-required" || len(o.Why) != 1 || !strings.Contains(o.Why[0].What, "web-pdb refuses to evict") ||
		o.OrderDependent || !strings.Contains(r.Scopes[0].Why, "no free slot (1 of 1 held by n0, stuck)") || r.Nodes[1].Note != r.Scopes[0].Why[len("2 node(s) never start: "):] {
		t.Fatalf("n0: %+v, scope %+v", o, r.Scopes[0])
	}
}

// Under the operator the same refusal of a GPU pod's budget fails the
// node after podDeletion's timeout (upgrade-failed, keeping its slot),
// or leaves it stuck in pod-deletion-required without one; which node
// meets it depends on the operator's order (found by the fidelity suite,
// where the library started the middle node).
func TestRollingOperatorTimeouts(t *testing.T) {
	pdb := `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: trainer-pdb}
spec:
  maxUnavailable: 0
  selector: {matchLabels: {app: trainer}}`
	m, after := gpuFleet(t, 3, func(int) string { return "" }, fmt.Sprintf(trainer, 3)+"\n---\n"+pdb)
	r, err := plan.Roll(m, after, operatorFlow(nil))
	if err != nil {
		t.Fatal(err)
	}
	o := r.Nodes[0]
	if !r.Halts || outcomes(r) != "g0:1:failed g1:0:not-started g2:0:not-started" || o.State != "upgrade-failed" ||
		!o.OrderDependent || o.Note != "podDeletion gives up after 300s" {
		t.Fatalf("%s %+v", outcomes(r), o)
	}
	// Any node may be the one that takes the slot, the middle one too
	// (neither the name order nor its reverse starts it).
	if !r.Nodes[1].OrderDependent || !r.Nodes[2].OrderDependent {
		t.Errorf("order dependence: %+v", r.Nodes)
	}
	r, err = plan.Roll(m, after, operatorFlow(func(p *operator.Policy) { p.PodDeletion.TimeoutSeconds = 0 }))
	if err != nil || r.Nodes[0].Outcome != plan.Stuck || r.Nodes[0].State != "pod-deletion-required" {
		t.Fatalf("%v %s %+v", err, outcomes(r), r.Nodes[0])
	}
	// With the drain on, the fallback meets the same budget: it fails there.
	r, err = plan.Roll(m, after, operatorFlow(func(p *operator.Policy) { p.Drain.Enabled = true }))
	if err != nil || r.Nodes[0].Outcome != plan.Failed || len(r.Nodes[0].Why) != 2 {
		t.Fatalf("%v %s %+v", err, outcomes(r), r.Nodes[0])
	}
}

func TestRollingMissingImageStallsAfterTheDrain(t *testing.T) {
	m, after := fleet(t)
	r, err := plan.Roll(m, after, manual(1))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Halts || r.Nodes[0].State != "pod-restart-required" || outcomes(r) != "n0:1:stuck n1:0:not-started n2:0:not-started" {
		t.Fatalf("%s %+v", outcomes(r), r.Nodes[0])
	}
}

// Under the operator's default policy only GPU pods are deleted: the web
// Deployment's budget, which stops a full drain, is never asked.
func TestRollingOperatorDeletesOnlyGPUPods(t *testing.T) {
	m, after := fleet(t, row550)
	r, err := plan.Roll(m, after, operatorFlow(func(p *operator.Policy) { p.MaxParallel = 0 }))
	if err != nil {
		t.Fatal(err)
	}
	// 25% of 3 nodes, rounded up: one at a time, and nothing is evicted.
	if r.Halts || outcomes(r) != "n0:1:upgraded n1:2:upgraded n2:3:upgraded" || r.Scopes[0].MaxUnavailable != 1 {
		t.Fatalf("%s %+v", outcomes(r), r.Scopes)
	}
	for _, o := range r.Nodes {
		if len(o.Evicted) != 0 {
			t.Errorf("%s evicted %v; only GPU pods go", o.Node, o.Evicted)
		}
	}
}
func TestNodePlanOnAFleet(t *testing.T) {
	m, after := fleet(t, row550)
	p, err := plan.ForNode(m, after, "n1", plan.Options{Driver: "550.90.07"})
	if err != nil {
		t.Fatal(err)
	}
	if !p.CanRun || p.Tag != "550-5.15.0-119-generic-ubuntu22.04" {
		t.Fatalf("%+v", p)
	}
	if _, err := plan.ForNode(m, after, "n9", plan.Options{Driver: "550.90.07"}); err == nil || err.Error() != "node n9 not found" {
		t.Fatalf("unknown node: %v", err)
	}
}

// The image step reads the rules: with no row for the node's kernel after
// the upgrade, DRV001's finding (message and fix) blocks it, and the audit
// step notes the other nodes the audit still reports.
func TestNodePlanImageStepReadsTheFindings(t *testing.T) {
	m, after := fleetUpgrading(t, []string{"n1"}, "550,5.15.0-120-generic,ubuntu22.04")
	p, err := plan.ForNode(m, after, "n1", plan.Options{Driver: "550.90.07"})
	if err != nil {
		t.Fatal(err)
	}
	img := p.Steps[0]
	if p.CanRun || img.Status != plan.Blocked || len(img.Blockers) != 1 {
		t.Fatalf("image step %+v", img)
	}
	if b := img.Blockers[0]; b.What != "no precompiled driver image 550-5.15.0-119-generic-ubuntu22.04 in "+after.Catalog.Describe()+
		": the sources have 5.15.0-120-generic, a newer generic kernel with a 550 tag for ubuntu22.04: move the node's kernel to it" ||
		b.Fix != "build and push 550-5.15.0-119-generic-ubuntu22.04, or add the row 550,5.15.0-119-generic,ubuntu22.04 to the support matrix" {
		t.Fatalf("blocker %+v", b)
	}
	// Only n1 is relabelled: the others keep their 535 tag, which no row has.
	want := []string{
		"the audit still reports n0 MISSING 535-5.15.0-119-generic-ubuntu22.04",
		"the audit still reports n2 MISSING 535-5.15.0-119-generic-ubuntu22.04",
	}
	if audit := p.Steps[5]; !slices.Equal(audit.Notes, want) {
		t.Fatalf("audit notes %q, want %q", audit.Notes, want)
	}
}

// gpuFleet is n GPU nodes with one allocatable GPU each (node extra is
// added to each node's spec/status YAML), plus workloads.
func gpuFleet(t *testing.T, n int, extra func(i int) string, workloads string) (*placement.Model, plan.After) {
	t.Helper()
	var docs []string
	for i := range n {
		docs = append(docs, gpuNode(fmt.Sprintf("g%d", i))+"\nstatus:\n  allocatable: {nvidia.com/gpu: \"1\"}"+extra(i))
	}
	return fleetOfDocs(t, append(docs, workloads), row550)
}

const trainer = `apiVersion: apps/v1
kind: Deployment
metadata: {name: trainer}
spec:
  replicas: %d
  selector: {matchLabels: {app: trainer}}
  template:
    metadata: {labels: {app: trainer}}
    spec:
      containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]`

// The reference's §0 fleet: a non-GPU web Deployment on every node under
// a budget that a full drain of several nodes breaks, a GPU trainer, and
// a cache with an emptyDir. The default policy with maxParallelUpgrades
// 0 rolls ceil(25% of 10) = 3 nodes at a time and nothing stalls: only the
// trainer's pods are deleted.
func TestRollingReferenceFleet(t *testing.T) {
	web10 := strings.Replace(strings.Replace(web, "replicas: 3", "replicas: 10", 1), "maxUnavailable: 1", "minAvailable: 8", 1)
	cache := `apiVersion: apps/v1
kind: Deployment
metadata: {name: cache}
spec:
  selector: {matchLabels: {app: cache}}
  template:
    metadata: {labels: {app: cache}}
    spec:
      containers: [{name: c, image: x}]
      volumes: [{name: tmp, emptyDir: {}}]`
	m, after := gpuFleet(t, 10, func(int) string { return "" }, web10+"\n---\n"+fmt.Sprintf(trainer, 2)+"\n---\n"+cache)
	r, err := plan.Roll(m, after, operatorFlow(func(p *operator.Policy) { p.MaxParallel = 0 }))
	if err != nil {
		t.Fatal(err)
	}
	rounds := map[int]int{}
	var evicted []string
	for _, o := range r.Nodes {
		if o.Outcome != plan.Upgraded {
			t.Errorf("%s: %s in %s %v", o.Node, o.Outcome, o.State, o.Why)
		}
		rounds[o.Round]++
		evicted = append(evicted, o.Evicted...)
	}
	if r.Halts || r.Scopes[0].MaxUnavailable != 3 || r.Scopes[0].Slots != 3 || rounds[1] != 3 || rounds[4] != 1 {
		t.Errorf("halts %v, scope %+v, rounds %v", r.Halts, r.Scopes[0], rounds)
	}
	// The trainer's replacements land on nodes of later rounds and are
	// deleted there again (a round's nodes stay cordoned until all its
	// pods are removed); nothing else is.
	if !slices.Contains(evicted, "default/trainer-0") || !slices.Contains(evicted, "default/trainer-1") ||
		slices.ContainsFunc(evicted, func(p string) bool { return !strings.HasPrefix(p, "default/trainer-") }) {
		t.Errorf("evicted %v; only the trainer's GPU pods", evicted)
	}
	// The manual procedure drains every pod, and the web budget holds.
	r, err = plan.Roll(m, after, manual(3))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(r.Nodes, func(o plan.NodeOutcome) bool { return o.Outcome == plan.Failed }) {
		t.Errorf("the manual drain should refuse the cache's emptyDir pod: %s", outcomes(r))
	}
}

// One NotReady node in a 4-node pool uses up maxUnavailable (25% of 4 is
// 1): nothing starts, and the scope says why.
func TestRollingNotReadyNodeBlocksEverything(t *testing.T) {
	notReady := func(i int) string {
		if i == 3 {
			return "\n  conditions: [{type: Ready, status: \"False\"}]"
		}
		return ""
	}
	m, after := gpuFleet(t, 4, notReady, fmt.Sprintf(trainer, 1))
	r, err := plan.Roll(m, after, operatorFlow(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Halts || outcomes(r) != "g0:0:not-started g1:0:not-started g2:0:not-started g3:0:not-started" ||
		!strings.Contains(r.Scopes[0].Why, "maxUnavailable 1 (25%) is used up: 1 of 4 managed node(s) are unavailable (g3 NotReady)") {
		t.Fatalf("%s %+v", outcomes(r), r.Scopes[0])
	}
}

// A cordoned node goes even without a slot, and stays cordoned.
func TestRollingPreCordonedNodeBypassesTheWindow(t *testing.T) {
	m, after := gpuFleet(t, 4, func(i int) string { return "" }, fmt.Sprintf(trainer, 1))
	m.Node("g2").Spec.Unschedulable = true
	r, err := plan.Roll(m, after, operatorFlow(nil))
	if err != nil {
		t.Fatal(err)
	}
	o := r.Nodes[2]
	if o.Outcome != plan.Upgraded || o.Round != 1 || !strings.Contains(o.Note, "leaves it cordoned") {
		t.Fatalf("g2: %+v; %s", o, outcomes(r))
	}
	if !r.Halts || r.Nodes[0].Outcome != plan.NotStarted {
		t.Fatalf("g2's cordon uses up maxUnavailable for the others: %s", outcomes(r))
	}
}

// A GPU pod's replacement needs a free GPU: with every GPU taken, it
// stays Pending, saying so.
func TestRollingGPUCapacity(t *testing.T) {
	m, after := gpuFleet(t, 3, func(int) string { return "" }, fmt.Sprintf(trainer, 3))
	r, err := plan.Roll(m, after, operatorFlow(nil))
	if err != nil {
		t.Fatal(err)
	}
	o := r.Nodes[0]
	if len(o.Pending) != 1 || !strings.Contains(o.Pending[0], "2 Insufficient nvidia.com/gpu") {
		t.Fatalf("g0: %+v", o)
	}
}

// Skip-labelled nodes stay in upgrade-required and still count.
func TestRollingSkipLabel(t *testing.T) {
	m, after := gpuFleet(t, 2, func(int) string { return "" }, fmt.Sprintf(trainer, 1))
	m.Node("g0").Labels[nodefacts.UpgradeSkip] = "true"
	r, err := plan.Roll(m, after, operatorFlow(nil))
	if err != nil {
		t.Fatal(err)
	}
	if outcomes(r) != "g0:0:skipped g1:1:upgraded" || r.Nodes[0].State != "upgrade-required" || r.Scopes[0].Managed != 2 {
		t.Fatalf("%s %+v", outcomes(r), r.Nodes[0])
	}
}

// A GPU DaemonSet pod cannot be deleted: pod deletion fails at once, and
// without the drain the node is upgrade-failed, keeping its slot.
// gpuDaemonSet is a DaemonSet whose pods request a GPU: GPU-pod deletion
// fails on them at once.
const gpuDaemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: dcgm}
spec:
  selector: {matchLabels: {app: dcgm}}
  template:
    metadata: {labels: {app: dcgm}}
    spec:
      containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]`

func TestRollingGPUDaemonSetFails(t *testing.T) {
	m, after := gpuFleet(t, 2, func(int) string { return "" }, gpuDaemonSet)
	r, err := plan.Roll(m, after, operatorFlow(nil))
	if err != nil {
		t.Fatal(err)
	}
	o := r.Nodes[0]
	if !r.Halts || outcomes(r) != "g0:1:failed g1:0:not-started" || o.State != "upgrade-failed" ||
		len(o.Why) != 1 || !strings.Contains(o.Why[0].What, "default/dcgm-g0") {
		t.Fatalf("%s %+v", outcomes(r), o)
	}
	// With the drain enabled the fallback ignores DaemonSet pods and passes.
	r, err = plan.Roll(m, after, operatorFlow(func(p *operator.Policy) { p.Drain.Enabled = true }))
	if err != nil || r.Halts || outcomes(r) != "g0:1:upgraded g1:2:upgraded" {
		t.Fatalf("%v %s", err, outcomes(r))
	}
}

// A change the node's driver pod only restarts for (its digest is the
// new template's): the GPU DaemonSet pod that fails GPU-pod deletion is
// never met, and every node upgrades; the node whose upgrade was
// requested takes the full path (shouldRestartOnly); a no-op node is
// skipped whatever its driver version.
func TestRollingRestartOnly(t *testing.T) {
	m, after := gpuFleet(t, 3, func(int) string { return "" }, gpuDaemonSet)
	kinds := map[string]string{"g0": change.RestartOnly, "g1": change.RestartOnly, "g2": change.NoOp}
	opt := operatorFlow(nil)
	opt.Driver, opt.Change = "the new configuration", func(n string) (string, string) { return kinds[n], "test" }
	r, err := plan.Roll(m, after, opt)
	if err != nil || r.Halts || outcomes(r) != "g0:1:upgraded g1:2:upgraded g2:0:skipped" ||
		!strings.Contains(r.Nodes[0].Note, "restart-only") || len(r.Nodes[0].Why) != 0 || r.Nodes[2].Note != "test" {
		t.Fatalf("%v %s %+v", err, outcomes(r), r.Nodes)
	}
	m.Nodes[0].Annotations = map[string]string{nodefacts.UpgradeRequested: "true"}
	if r, err = plan.Roll(m, after, opt); err != nil || outcomes(r) != "g0:1:failed g1:0:not-started g2:0:skipped" {
		t.Fatalf("requested: %v %s", err, outcomes(r))
	}
}

// The scope's counts at the outset take every node the operator manages,
// whether its tag is known or not, and no node it leaves alone: a
// cordoned, NotReady node in cordon-required with no OS labels is one of
// the managed, already in the upgrade and unavailable; a node labelled
// nvidia.com/gpu.deploy.driver=false with no OS labels has no driver pod
// and counts nowhere (GetTotalManagedNodes counts the driver pods' nodes,
// k8s-operator-libs pkg/upgrade/upgrade_state.go:1038-1054).
func TestRollingHeaderCountsNodesWhoseTagIsUnknown(t *testing.T) {
	noOS := func(name, labels, rest string) string {
		n := gpuNode(name)
		for _, l := range []string{"\n    feature.node.kubernetes.io/system-os_release.ID: ubuntu", "\n    feature.node.kubernetes.io/system-os_release.VERSION_ID: \"22.04\""} {
			n = strings.Replace(n, l, "", 1)
		}
		return n + labels + rest
	}
	docs := []string{gpuNode("n0"), gpuNode("n1"),
		noOS("n2", "\n    nvidia.com/gpu.deploy.driver: \"false\"", ""),
		noOS("n3", "\n    nvidia.com/gpu-driver-upgrade-state: cordon-required", "\nspec: {unschedulable: true}\nstatus:\n  conditions: [{type: Ready, status: \"False\"}]"),
		web}
	m, after := fleetOfDocs(t, docs, row550)
	if f, _ := after.Facts.Get("n3"); f.Tag != "" {
		t.Fatalf("n3's tag is known: %s", f.Tag)
	}
	r, err := plan.Roll(m, after, operatorFlow(func(p *operator.Policy) { p.MaxUnavailable = "100%" }))
	if err != nil {
		t.Fatal(err)
	}
	sc := r.Scopes[0]
	if sc.Managed != 3 || sc.InProgress != 1 || sc.Unavailable != 1 {
		t.Errorf("managed %d, in progress %d, unavailable %d; want 3, 1, 1", sc.Managed, sc.InProgress, sc.Unavailable)
	}
	if o := r.Nodes[2]; o.Outcome != plan.Skipped || o.Note != "not managed: nvidia.com/gpu.deploy.driver=false" {
		t.Errorf("n2: %+v", o)
	}
	if o := r.Nodes[3]; o.Outcome != plan.Stuck || !strings.Contains(o.Note, "the new driver image is unknown") {
		t.Errorf("n3: %+v", o)
	}
}

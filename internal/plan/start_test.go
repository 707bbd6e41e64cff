package plan_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/operator"
	"github.com/drvcheck/drvcheck/internal/placement"
	"github.com/drvcheck/drvcheck/internal/plan"
)

// The expected outcomes below are the upgrade library's
// (k8s-operator-libs@7d667fbaa7ac pkg/upgrade/upgrade_state.go), read from
// its code; the fidelity suite runs the same cases against it.

func labelState(m *placement.Model, node, state string) {
	m.Node(node).Labels[nodefacts.UpgradeState] = state
}

func runs550(m *placement.Model, node string) {
	l := m.Node(node).Labels
	l["nvidia.com/cuda.driver.major"], l["nvidia.com/cuda.driver.minor"], l["nvidia.com/cuda.driver.rev"] = "550", "90", "07"
}

// An upgrade-failed node whose driver pod is out of date stays failed and
// holds the only slot: nothing else starts (ProcessUpgradeFailedNodes,
// GetUpgradesInProgress).
func TestRollingFailedNodeHoldsItsSlot(t *testing.T) {
	m, after := gpuFleet(t, 4, func(int) string { return "" }, fmt.Sprintf(trainer, 1))
	labelState(m, "g0", "upgrade-failed")
	r, err := plan.Roll(m, after, operatorFlow(nil))
	if err != nil {
		t.Fatal(err)
	}
	if outcomes(r) != "g0:0:failed g1:0:not-started g2:0:not-started g3:0:not-started" || !r.Halts {
		t.Fatalf("%s", outcomes(r))
	}
	g0, g1 := r.Nodes[0], r.Nodes[1]
	if g0.From != "upgrade-failed" || g0.State != "upgrade-failed" || g0.OrderDependent || len(g0.Why) != 1 ||
		!strings.Contains(g0.Why[0].Fix, "=upgrade-required") {
		t.Fatalf("g0: %+v", g0)
	}
	if g1.Note != "no free slot (1 of 1 held by g0, failed)" || g1.OrderDependent {
		t.Fatalf("g1: %+v", g1)
	}
	if sc := r.Scopes[0]; sc.InProgress != 1 || sc.Slots != 0 {
		t.Fatalf("scope: %+v", sc)
	}
}

// An upgrade-failed node already on the new driver, Ready, recovers: it
// is uncordoned and done, and frees its slot for the others.
func TestRollingFailedNodeInSyncRecovers(t *testing.T) {
	m, after := gpuFleet(t, 3, func(int) string { return "" }, "")
	labelState(m, "g0", "upgrade-failed")
	runs550(m, "g0")
	m.Node("g0").Spec.Unschedulable = true
	r, err := plan.Roll(m, after, operatorFlow(nil))
	if err != nil {
		t.Fatal(err)
	}
	if outcomes(r) != "g0:1:upgraded g1:2:upgraded g2:3:upgraded" || r.Halts {
		t.Fatalf("%s", outcomes(r))
	}
	if strings.Contains(r.Nodes[0].Note, "leaves it cordoned") {
		t.Fatalf("g0 was cordoned by its upgrade, not before it: %+v", r.Nodes[0])
	}
}

// With the library's initial-state annotation, a node the upgrade holds
// was cordoned before it, and stays cordoned.
func TestRollingResumedNodeKeepsAnEarlierCordon(t *testing.T) {
	m, after := gpuFleet(t, 2, func(int) string { return "" }, "")
	labelState(m, "g1", "pod-restart-required")
	m.Node("g1").Spec.Unschedulable = true
	m.Node("g1").Annotations = map[string]string{nodefacts.InitialUnschedulable: "true"}
	r, err := plan.Roll(m, after, operatorFlow(nil))
	if err != nil {
		t.Fatal(err)
	}
	g1 := r.Nodes[1]
	if g1.Outcome != plan.Upgraded || g1.Round != 1 || g1.From != "pod-restart-required" || !strings.Contains(g1.Note, "leaves it cordoned") {
		t.Fatalf("g1: %+v; %s", g1, outcomes(r))
	}
}

// A NotReady node that a permissive window lets start cannot run its new
// driver pod: it waits in pod-restart-required, holding its slot.
func TestRollingNotReadyNodeWaitsForItsDriverPod(t *testing.T) {
	notReady := func(i int) string {
		if i == 3 {
			return "\n  conditions: [{type: Ready, status: \"False\"}]"
		}
		return ""
	}
	m, after := gpuFleet(t, 4, notReady, "")
	r, err := plan.Roll(m, after, operatorFlow(func(p *operator.Policy) { p.MaxParallel, p.MaxUnavailable = 0, "100%" }))
	if err != nil {
		t.Fatal(err)
	}
	if outcomes(r) != "g0:1:upgraded g1:1:upgraded g2:1:upgraded g3:1:stuck" {
		t.Fatalf("%s", outcomes(r))
	}
	g3 := r.Nodes[3]
	if g3.State != "pod-restart-required" || len(g3.Why) != 1 || !strings.Contains(g3.Why[0].What, "NotReady") {
		t.Fatalf("g3: %+v", g3)
	}
}

// A node in drain-required goes on with the drain fallback, which a
// budget refuses: it fails, and its slot stays held. With the drain off
// it goes straight to pod-restart-required (ProcessDrainNodes).
func TestRollingResumesADrain(t *testing.T) {
	workloads := strings.Replace(web, "maxUnavailable: 1", "minAvailable: 3", 1)
	for _, tc := range []struct {
		drain bool
		want  string
	}{
		{true, "n0:0:not-started n1:1:failed n2:0:not-started"},
		{false, "n0:2:upgraded n1:1:upgraded n2:3:upgraded"},
	} {
		m, after := fleetWith(t, workloads, row550)
		labelState(m, "n1", "drain-required")
		opt := operatorFlow(func(p *operator.Policy) { p.Drain.Enabled, p.Drain.TimeoutSeconds = tc.drain, 30 })
		r, err := plan.Roll(m, after, opt)
		if err != nil {
			t.Fatal(err)
		}
		if got := outcomes(r); got != tc.want {
			t.Fatalf("drain %v: %s, want %s", tc.drain, got, tc.want)
		}
		if n1 := r.Nodes[1]; tc.drain && (len(n1.Why) == 0 || n1.Why[0].Phase != "drain" || !strings.Contains(n1.Why[0].What, "web-pdb")) {
			t.Fatalf("n1: %+v", n1)
		}
	}
}

// upgrade-done is only where the last rollout left a node: out of date
// now, it is required again. A value the library does not know is left
// alone and counted nowhere.
func TestRollingReadsDoneAndUnknownStates(t *testing.T) {
	m, after := gpuFleet(t, 3, func(int) string { return "" }, "")
	labelState(m, "g0", "upgrade-done")
	labelState(m, "g1", "node-maintenance-required")
	r, err := plan.Roll(m, after, operatorFlow(nil))
	if err != nil {
		t.Fatal(err)
	}
	if outcomes(r) != "g0:1:upgraded g1:0:skipped g2:2:upgraded" {
		t.Fatalf("%s", outcomes(r))
	}
	if g1 := r.Nodes[1]; g1.State != "node-maintenance-required" || !strings.Contains(g1.Note, "left as it is") {
		t.Fatalf("g1: %+v", g1)
	}
}

// The manual procedure knows no upgrade states: a label changes nothing.
func TestRollingManualIgnoresStates(t *testing.T) {
	m, after := fleet(t, row550)
	labelState(m, "n0", "upgrade-failed")
	r, err := plan.Roll(m, after, manual(1))
	if err != nil {
		t.Fatal(err)
	}
	if outcomes(r) != "n0:1:upgraded n1:2:upgraded n2:3:upgraded" {
		t.Fatalf("%s", outcomes(r))
	}
}

// A driver pod that runs under a NoSchedule taint it does not tolerate is
// one the DaemonSet controller no longer counts as desired: the upgrade
// library's BuildState then fails every reconcile, and no node moves.
func TestRollingUntoleratedTaintStopsTheScope(t *testing.T) {
	driverPod := `apiVersion: v1
kind: Pod
metadata: {name: nvidia-driver-daemonset-x, namespace: gpu-operator, labels: {app: nvidia-driver-daemonset}}
spec:
  nodeName: g1
  containers: [{name: c, image: nvcr.io/nvidia/driver:535.183.06-ubuntu22.04}]
  tolerations: [{key: node.kubernetes.io/unschedulable, operator: Exists, effect: NoSchedule}]`
	taint := func(i int) string {
		if i == 1 {
			return "\nspec:\n  taints: [{key: dedicated, value: ml, effect: NoSchedule}]"
		}
		return ""
	}
	m, after := gpuFleet(t, 3, taint, driverPod)
	r, err := plan.Roll(m, after, operatorFlow(nil))
	if err != nil {
		t.Fatal(err)
	}
	if outcomes(r) != "g0:0:not-started g1:0:not-started g2:0:not-started" || !r.Halts {
		t.Fatalf("%s", outcomes(r))
	}
	if why := r.Scopes[0].Why; !strings.Contains(why, "g1 (dedicated=ml:NoSchedule)") || !strings.Contains(why, "should not have Unscheduled pods") {
		t.Fatalf("scope: %s", why)
	}
	if r.Nodes[0].State != "" {
		t.Fatalf("g0 is left as it is: %+v", r.Nodes[0])
	}
}

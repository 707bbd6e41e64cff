package drain

import (
	"fmt"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/inventory"
)

func liveModel(t *testing.T, docs ...string) *Model {
	t.Helper()
	inv, err := inventory.Parse("cluster.yaml", []byte(strings.Join(docs, "\n---\n")), false)
	if err != nil {
		t.Fatal(err)
	}
	inv.Live = true
	m, err := New(inv)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func livePod(name, node, owner string, ready bool) string {
	own := ""
	if owner != "" {
		kind, oname, _ := strings.Cut(owner, "/")
		own = fmt.Sprintf("  ownerReferences: [{apiVersion: apps/v1, kind: %s, name: %s, uid: u-%s, controller: true}]\n", kind, oname, oname)
	}
	status := "False"
	if ready {
		status = "True"
	}
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %s
  labels: {app: web}
%sspec:
  nodeName: %s
  containers: [{name: c, image: x}]
status:
  phase: Running
  conditions: [{type: Ready, status: "%s"}]`, name, own, node, status)
}

const liveControllers = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, uid: u-web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: x}]}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-5d8f
  uid: u-web-5d8f
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: u-web, controller: true}]
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: x}]}}`

func livePDB(generation, observed, allowed int) string {
	return fmt.Sprintf(`apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web-pdb, generation: %d}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: web}}
status:
  observedGeneration: %d
  expectedPods: 3
  desiredHealthy: 2
  currentHealthy: 3
  disruptionsAllowed: %d`, generation, observed, allowed)
}

func TestLiveUsesTheClustersPodsAndStatus(t *testing.T) {
	m := liveModel(t, nodes(2), liveControllers, livePDB(1, 1, 1),
		livePod("web-5d8f-a", "n0", "ReplicaSet/web-5d8f", true),
		livePod("web-5d8f-b", "n0", "ReplicaSet/web-5d8f", true),
		livePod("web-5d8f-c", "n1", "ReplicaSet/web-5d8f", false),
		livePod("agent", "n0", "DaemonSet/agent", true))
	if got := names(m.PodsOn("n0")); got != "default/agent default/web-5d8f-a default/web-5d8f-b" {
		t.Fatalf("n0 holds %q", got)
	}
	b := budget(m, "web-pdb")
	if b.Status != Observed || b.Count.Allowed != 1 {
		t.Fatalf("status %s %+v, want observed with 1 allowed", b.Status, b.Count)
	}
	// A pod of a Deployment's ReplicaSet belongs to the Deployment.
	if p := b.Pods[1]; p.Workload.Kind != "Deployment" || p.Scale != 3 {
		t.Fatalf("pod workload %v scale %d", p.Workload, p.Scale)
	}
	res := m.NewSim(Flags{}).Drain("n0")
	if names(res.Stays) != "default/agent" {
		t.Fatalf("stays %q, want the DaemonSet pod", names(res.Stays))
	}
	// One allowed: the first eviction lands on n1, the budget recovers,
	// the second goes too.
	if !res.Done() || len(res.Evicted) != 2 {
		t.Fatalf("drain %+v", res)
	}
}

func TestLiveStaleStatusIsUnknownAndCountedFromPods(t *testing.T) {
	m := liveModel(t, nodes(2), liveControllers, livePDB(2, 1, 0),
		livePod("web-5d8f-a", "n0", "ReplicaSet/web-5d8f", true),
		livePod("web-5d8f-b", "n1", "ReplicaSet/web-5d8f", true),
		livePod("web-5d8f-c", "n1", "ReplicaSet/web-5d8f", true))
	b := budget(m, "web-pdb")
	if b.Status != Stale || !strings.Contains(b.StatusNote, "observedGeneration 1 lags generation 2") {
		t.Fatalf("status %s note %q", b.Status, b.StatusNote)
	}
	// Counted as the controller would: expected 3 (the Deployment's scale),
	// desired 2, healthy 3, allowed 1; not the stale 0.
	if c := b.Count; c.Expected != 3 || c.Desired != 2 || c.Healthy != 3 || c.Allowed != 1 {
		t.Fatalf("count %+v", c)
	}
}

// A finished pod is deleted without a budget check and not replaced.
func TestLiveFinishedPodIsNotReplaced(t *testing.T) {
	done := strings.Replace(livePod("job-x", "n0", "ReplicaSet/web-5d8f", false), "phase: Running", "phase: Succeeded", 1)
	m := liveModel(t, nodes(2), liveControllers, livePDB(1, 1, 0), done)
	res := m.NewSim(Flags{}).Drain("n0")
	if !res.Done() || len(res.Evicted) != 1 || !res.Evicted[0].Gone {
		t.Fatalf("drain %+v, want the finished pod gone despite 0 allowed", res)
	}
}

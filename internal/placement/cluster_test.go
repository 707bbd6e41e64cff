package placement

import (
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/drain/draintest"
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

func TestLiveUsesTheClustersPodsAndStatus(t *testing.T) {
	m := liveModel(t, draintest.Nodes(2), draintest.LiveControllers, draintest.LivePDB(1, 1, 1),
		draintest.LivePod("web-5d8f-a", "n0", "ReplicaSet/web-5d8f", true),
		draintest.LivePod("web-5d8f-b", "n0", "ReplicaSet/web-5d8f", true),
		draintest.LivePod("web-5d8f-c", "n1", "ReplicaSet/web-5d8f", false),
		draintest.LivePod("agent", "n0", "DaemonSet/agent", true))
	if got := names(m.PodsOn("n0")); got != "default/agent default/web-5d8f-a default/web-5d8f-b" {
		t.Fatalf("n0 holds %q", got)
	}
	b := budget(m, "web-pdb")
	if b.Status != drain.Observed || b.Count.Allowed != 1 {
		t.Fatalf("status %s %+v, want observed with 1 allowed", b.Status, b.Count)
	}
	// A pod of a Deployment's ReplicaSet belongs to the Deployment.
	if p := b.Pods[1]; p.Workload.Kind != "Deployment" || p.Scale != 3 {
		t.Fatalf("pod workload %v scale %d", p.Workload, p.Scale)
	}
	res := m.NewSim(drain.Flags{}).Drain("n0")
	if names(res.Stays) != "default/agent" {
		t.Fatalf("stays %q, want the DaemonSet pod", names(res.Stays))
	}
	// One allowed: the first eviction lands on n1, the budget recovers,
	// the second goes too.
	if !res.Done() || len(res.Evicted) != 2 {
		t.Fatalf("drain %+v", res)
	}
}

// A finished pod is deleted without a budget check and not replaced.
func TestLiveFinishedPodIsNotReplaced(t *testing.T) {
	done := strings.Replace(draintest.LivePod("job-x", "n0", "ReplicaSet/web-5d8f", false), "phase: Running", "phase: Succeeded", 1)
	m := liveModel(t, draintest.Nodes(2), draintest.LiveControllers, draintest.LivePDB(1, 1, 0), done)
	res := m.NewSim(drain.Flags{}).Drain("n0")
	if !res.Done() || len(res.Evicted) != 1 || !res.Evicted[0].Gone {
		t.Fatalf("drain %+v, want the finished pod gone despite 0 allowed", res)
	}
}

package drain

import (
	"strings"
	"testing"

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
	m, err := New(inv, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestLiveStaleStatusIsUnknownAndCountedFromPods(t *testing.T) {
	m := liveModel(t, draintest.Nodes(2), draintest.LiveControllers, draintest.LivePDB(2, 1, 0),
		draintest.LivePod("web-5d8f-a", "n0", "ReplicaSet/web-5d8f", true),
		draintest.LivePod("web-5d8f-b", "n1", "ReplicaSet/web-5d8f", true),
		draintest.LivePod("web-5d8f-c", "n1", "ReplicaSet/web-5d8f", true))
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

package render

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/internal/operator"
	"github.com/drvcheck/drvcheck/internal/plan"
	"github.com/drvcheck/drvcheck/internal/status"
	"github.com/drvcheck/drvcheck/policy"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/ from the renderers")

// golden compares what render wrote with testdata/NAME; with -update it
// writes the file instead, for review in the diff.
func golden(t *testing.T, name string, render func(*bytes.Buffer) error) {
	t.Helper()
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/render -update to write it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s differs from what the renderer writes now (go test ./internal/render -update, then review the diff):\n--- got\n%s\n--- want\n%s", path, buf.Bytes(), want)
	}
}

// labPlan is plan lab-node-1 --driver 550.90.07 on the lab before its image
// and budget are fixed: the image and budget steps block, the rest wait.
func labPlan() *plan.Plan {
	tag := "550-5.15.0-107-generic-ubuntu22.04"
	return &plan.Plan{
		Node: "lab-node-1", From: "535.183.06", To: "550.90.07", Tag: tag,
		Steps: []plan.Step{
			{N: 1, Name: plan.StepImage, Title: "image present?", Status: plan.Blocked, Summary: "needs " + tag,
				Blockers: []plan.Blocker{{What: "no precompiled driver image " + tag + " in support-matrix.csv",
					Fix: "build and push " + tag + ", or add the row 550,5.15.0-107-generic,ubuntu22.04 to the support matrix"}},
				Notes: []string{}},
			{N: 2, Name: plan.StepBudget, Title: "budget room", Status: plan.Blocked,
				Summary:  "1 budget(s) refuse evictions from lab-node-1 (trainer-pdb allows 0)",
				Blockers: []plan.Blocker{{What: "trainer-pdb refuses to evict gpu-drv/trainer-1", Fix: "lower trainer-pdb minAvailable from 4 to 3"}},
				Notes:    []string{}},
			{N: 3, Name: plan.StepDrain, Title: "drain", Status: plan.Waiting,
				Summary:  "kubectl drain lab-node-1 --ignore-daemonsets evicts 1 pod(s): gpu-drv/trainer-1",
				Blockers: []plan.Blocker{}, Notes: []string{"gpu-drv/trainer-1's replacement stays Pending: 0/4 nodes are available"}},
			{N: 4, Name: plan.StepReload, Title: "relabel/reload", Status: plan.Waiting,
				Summary:  "the driver pod loads 550.90.07 from " + tag + "; the node is relabelled nvidia.com/cuda.driver.major=550",
				Blockers: []plan.Blocker{}, Notes: []string{}},
			{N: 5, Name: plan.StepUncordon, Title: "uncordon", Status: plan.Waiting, Summary: "kubectl uncordon lab-node-1",
				Blockers: []plan.Blocker{}, Notes: []string{}},
			{N: 6, Name: plan.StepAudit, Title: "audit", Status: plan.Waiting, Summary: "drvcheck audit then finds lab-node-1's tag " + tag,
				Blockers: []plan.Blocker{}, Notes: []string{"the audit still reports lab-node-3 MISSING 550-6.8.0-52-generic-ubuntu24.04"}},
		},
		NeedsForce: []string{}, NeedsDeleteEmptyDir: []string{},
	}
}

func TestPlanGolden(t *testing.T) {
	golden(t, "plan.txt", func(b *bytes.Buffer) error { return Plan(b, "text", labPlan()) })
	golden(t, "plan.json", func(b *bytes.Buffer) error { return Plan(b, "json", labPlan()) })
	ok := labPlan()
	ok.CanRun, ok.From = true, ""
	golden(t, "plan-can-run.txt", func(b *bytes.Buffer) error { return Plan(b, "text", ok) })
}

func labRolling() *plan.Rolling {
	manual := operator.ManualPolicy(1, false, false)
	return verdict(&plan.Rolling{Driver: "550.90.07", Halts: true,
		Scopes: []plan.Scope{{Name: "all GPU nodes", Policy: manual, Managed: 4, MaxUnavailable: 4, Slots: 1, Halts: true,
			Why: "2 node(s) never start: no free slot (1 of 1 held by lab-node-1, stuck)"}},
		Nodes: []plan.NodeOutcome{
			{Node: "lab-node-0", Scope: "all GPU nodes", Outcome: plan.Skipped, State: "upgrade-done", Note: "already runs 550.90.07", Why: []plan.Blocker{}, Evicted: []string{}, Pending: []string{}},
			{Node: "lab-node-1", Scope: "all GPU nodes", Round: 1, Outcome: plan.Stuck, State: "drain-required", Evicted: []string{}, Pending: []string{},
				Why: []plan.Blocker{{What: "trainer-pdb refuses to evict gpu-drv/trainer-1", Fix: "lower trainer-pdb minAvailable from 4 to 3", Phase: "drain"}}},
			{Node: "lab-node-2", Scope: "all GPU nodes", Outcome: plan.NotStarted, State: "upgrade-required", Note: "no free slot (1 of 1 held by lab-node-1, stuck)",
				Why: []plan.Blocker{}, Evicted: []string{}, Pending: []string{}},
			{Node: "lab-node-3", Scope: "all GPU nodes", Outcome: plan.NotStarted, State: "upgrade-required", Note: "no free slot (1 of 1 held by lab-node-1, stuck)",
				Why: []plan.Blocker{}, Evicted: []string{}, Pending: []string{}},
		}})
}

func verdict(r *plan.Rolling) *plan.Rolling {
	r.Verdict, r.Severity = plan.VerdictOf(r)
	return r
}

// operatorRolling is the operator's flow over four nodes: one upgraded
// whose replacement waits for its uncordon, one that fails GPU-pod
// deletion and then the drain fallback, a replacement evicted again, and
// one already failed that holds its slot.
func operatorRolling() *plan.Rolling {
	pol := operator.PolicyOf(nil, "ClusterPolicy/cluster-policy spec.driver.upgradePolicy", true)
	pol.MaxParallel, pol.Drain.Enabled = 3, true
	return verdict(&plan.Rolling{Driver: "550.90.07",
		Scopes: []plan.Scope{{Name: "every managed node", Policy: pol,
			Managed: 4, MaxUnavailable: 1, Slots: 1, InProgress: 1}},
		Nodes: []plan.NodeOutcome{
			{Node: "g0", Round: 1, Outcome: plan.Upgraded, State: "upgrade-done", Why: []plan.Blocker{}, Evicted: []string{"ml/trainer-0"},
				Pending: []string{"ml/trainer-0 (replacement) waits Pending only until g0 is uncordoned, then lands on g0; until then: 0/4 nodes are available: 1 node(s) were unschedulable, 3 Insufficient nvidia.com/gpu."}},
			{Node: "g1", Round: 2, Outcome: plan.Failed, OrderDependent: true, State: "upgrade-failed", Note: "drain gives up after 300s",
				Evicted: []string{"ml/trainer-0 (replacement)"}, Pending: []string{},
				Why: []plan.Blocker{
					{What: "trainer-pdb refuses to evict ml/trainer-1", Fix: "lower trainer-pdb minAvailable from 4 to 3", Phase: "podDeletion"},
					{What: "trainer-pdb refuses to evict ml/trainer-1", Fix: "lower trainer-pdb minAvailable from 4 to 3", Phase: "drain"},
				}},
			{Node: "g2", Outcome: plan.Failed, From: "upgrade-failed", State: "upgrade-failed", Evicted: []string{}, Pending: []string{},
				Why: []plan.Blocker{{What: "was already upgrade-failed, and its driver pod is not in sync and Ready: the operator leaves it there, holding an upgrade slot",
					Fix: "fix what failed it (check's DRV030 says what holds it), then label it nvidia.com/gpu-driver-upgrade-state=upgrade-required"}}},
			{Node: "g3", Round: 1, Outcome: plan.Stuck, State: "pod-restart-required", Evicted: []string{}, Pending: []string{},
				Why: []plan.Blocker{{What: "g3 is NotReady: its new driver pod cannot start, so the node waits, cordoned, holding its slot",
					Fix: "bring the node's kubelet back, or remove the node from the cluster"}}},
		}})
}

// offRolling is a scope the operator does not roll: autoUpgrade is off.
func offRolling() *plan.Rolling {
	pol := operator.PolicyOf(nil, "ClusterPolicy/cluster-policy spec.driver.upgradePolicy", false)
	return verdict(&plan.Rolling{Driver: "550.90.07",
		Scopes: []plan.Scope{{Name: "every managed node", Policy: pol, Managed: 1, MaxUnavailable: 1,
			Why: "autoUpgrade is off: the operator does not roll the driver. A driver pod restarts only when deleted (OnDelete), and its driver manager then evicts the node's GPU pods itself, with no drain and no timeout"}},
		Nodes: []plan.NodeOutcome{
			{Node: "g0", Outcome: plan.NotRolled, Note: "the operator will not roll it: autoUpgrade is off", Why: []plan.Blocker{}, Evicted: []string{}, Pending: []string{}},
		}})
}

func TestRollingGolden(t *testing.T) {
	golden(t, "rolling.txt", func(b *bytes.Buffer) error { return Rolling(b, "text", labRolling()) })
	golden(t, "rolling.json", func(b *bytes.Buffer) error { return Rolling(b, "json", labRolling()) })
	all := labRolling()
	all.Halts, all.Scopes[0].Halts, all.Nodes = false, false, all.Nodes[:1]
	golden(t, "rolling-no-stall.txt", func(b *bytes.Buffer) error { return Rolling(b, "text", verdict(all)) })
	golden(t, "rolling-operator.txt", func(b *bytes.Buffer) error { return Rolling(b, "text", operatorRolling()) })
	golden(t, "rolling-off.txt", func(b *bytes.Buffer) error { return Rolling(b, "text", offRolling()) })
}

func labStatus() []status.Row {
	pdb := &policy.Finding{Rule: "DRV020", Title: "pdb-blocks-drain", Severity: policy.Error,
		Object:  object.Ref{Kind: "PodDisruptionBudget", Namespace: "gpu-drv", Name: "trainer-pdb"},
		Message: "trainer-pdb allows 0 disruptions; lower trainer-pdb minAvailable from 4 to 3", File: "k8s/pdb.yaml", Line: 7}
	return []status.Row{
		{Node: "lab-node-0", Driver: "550.90.07", Kernel: "5.15.0-119-generic", Tag: "550-5.15.0-119-generic-ubuntu22.04", Image: status.ImagePresent},
		{Node: "lab-node-1", Driver: "535.183.06", Kernel: "5.15.0-107-generic", Tag: "535-5.15.0-107-generic-ubuntu22.04", Image: status.ImagePresent,
			State: "drain-required", StateStep: 5, Cordoned: true, Finding: pdb},
		{Node: "lab-node-3", Image: status.ImageNoTag, State: "upgrading"},
	}
}

func TestStatusGolden(t *testing.T) {
	golden(t, "status.txt", func(b *bytes.Buffer) error { return Status(b, "text", labStatus()) })
	golden(t, "status.json", func(b *bytes.Buffer) error { return Status(b, "json", labStatus()) })
	golden(t, "status-empty.json", func(b *bytes.Buffer) error { return Status(b, "json", nil) })
}

func verifyResults() []policy.TestResult {
	return []policy.TestResult{
		{Package: "drvcheck.rules.drv001_test", Name: "test_lab_node_3_lacks_its_image", File: "rego/drv001_missing_driver_image_test.rego", Row: 9,
			Outcome: policy.Pass, Duration: 1234567 * time.Nanosecond},
		{Package: "acme_test", Name: "test_broken", File: "policies/acme_test.rego", Row: 4, Outcome: policy.Fail, Output: "got\n  3 findings"},
		{Package: "acme_test", Name: "test_erred", File: "policies/acme_test.rego", Row: 9, Outcome: policy.Erred,
			Error: "policies/acme_test.rego:10: eval_builtin_error: to_number: invalid syntax"},
		{Package: "acme_test", Name: "todo_test_later", File: "policies/acme_test.rego", Row: 14, Outcome: policy.Skip},
	}
}

func TestVerifyGolden(t *testing.T) {
	golden(t, "verify.txt", func(b *bytes.Buffer) error { return Verify(b, "text", verifyResults()) })
	golden(t, "verify.json", func(b *bytes.Buffer) error { return Verify(b, "json", verifyResults()) })
}

func TestLinesGolden(t *testing.T) {
	missing := []policy.Finding{
		{Node: "lab-node-3", Tag: "550-6.8.0-52-generic-ubuntu24.04"},
		{Node: "lab-node-4", Tag: "550-6.8.0-53-generic-ubuntu24.04"},
	}
	golden(t, "audit.txt", func(b *bytes.Buffer) error { return Audit(b, missing) })
	golden(t, "audit-ok.txt", func(b *bytes.Buffer) error { return Audit(b, nil) })
	golden(t, "tag.txt", func(b *bytes.Buffer) error { return Tag(b, "535-5.15.0-107-generic-ubuntu22.04") })
	golden(t, "tag-check.txt", func(b *bytes.Buffer) error {
		tag := "550-5.15.0-119-generic-ubuntu22.04"
		if err := TagCheck(b, tag, catalog.Verdict{Checked: true, Present: true, Sources: []string{"m.csv", "nvcr.io/nvidia/driver"}}, "m.csv, nvcr.io/nvidia/driver"); err != nil {
			return err
		}
		return TagCheck(b, "550-6.8.0-52-generic-ubuntu24.04", catalog.Verdict{Checked: true}, "m.csv, nvcr.io/nvidia/driver")
	})
	golden(t, "version.txt", func(b *bytes.Buffer) error { return Version(b, "v1.2.3", "abc1234", "1.22.4") })
	golden(t, "input.json", func(b *bytes.Buffer) error {
		return Input(b, map[string]any{"version": 1, "mode": "files", "nodes": []any{map[string]any{"name": "a", "tag": "<x>"}}})
	})
}

// The fixture's run as metrics: a zero for each rule that found nothing, a
// custom severity kept, a label value escaped; and a failed run keeps only
// what says it failed.
func TestPrometheusGolden(t *testing.T) {
	r, opt := fixture(t)
	r.Run = Run{ExitCode: 1, Finished: time.Unix(1796284800, 0), Duration: 1500 * time.Millisecond,
		UpgradeStates: map[string]int{"": 2, "upgrade-done": 3, "pod-restart-required": 1}}
	opt.Version = `v1.0.0 "rc\1"`
	golden(t, "metrics.prom", func(b *bytes.Buffer) error { return Prometheus(b, r, opt) })
	failed := Report{Run: Run{Error: "cluster https://x unreachable", ExitCode: 2, Finished: time.Unix(1796284800, 0), Duration: time.Second}}
	golden(t, "metrics-failed.prom", func(b *bytes.Buffer) error { return Prometheus(b, failed, Options{Version: "v1.0.0"}) })
}

func TestTextOrJSON(t *testing.T) {
	for _, f := range []string{"text", "json"} {
		if err := TextOrJSON("plan", f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if err := TextOrJSON("plan", "sarif"); err == nil || err.Error() != "plan: --output sarif: want text or json" {
		t.Errorf("sarif: %v", err)
	}
}

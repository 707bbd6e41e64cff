package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/config"
	"github.com/drvcheck/drvcheck/policy"
)

const lab = "../../testdata/lab/k8s"

func fixture(name string) string { return filepath.Join("../../testdata/scheduling", name) }

func run(t *testing.T, cfg Config) []policy.Finding {
	t.Helper()
	res, err := Check(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res.Findings
}

// find returns the findings of rule on the named object.
func find(fs []policy.Finding, rule, name string) []policy.Finding {
	var out []policy.Finding
	for _, f := range fs {
		if f.Rule == rule && f.Object.Name == name {
			out = append(out, f)
		}
	}
	return out
}

// one returns the single finding of rule on name, failing otherwise.
func one(t *testing.T, fs []policy.Finding, rule, name string) policy.Finding {
	t.Helper()
	got := find(fs, rule, name)
	if len(got) != 1 {
		t.Fatalf("%d %s findings on %s, want 1; all findings: %+v", len(got), rule, name, fs)
	}
	return got[0]
}

func about(fs []policy.Finding, name string) []policy.Finding {
	var out []policy.Finding
	for _, f := range fs {
		if f.Object.Name == name {
			out = append(out, f)
		}
	}
	return out
}

func TestLabCuda13JobIsUnschedulable(t *testing.T) {
	fs := run(t, Config{Paths: []string{lab}})
	f := one(t, fs, "DRV010", "cuda13-job")
	if want := "0/4 nodes match: 4 node(s) didn't match Pod's node affinity/selector"; f.Message != want {
		t.Errorf("message %q, want %q", f.Message, want)
	}
	if f.Severity != policy.Error || f.Title != "unschedulable-affinity" {
		t.Errorf("severity %s title %s", f.Severity, f.Title)
	}
	// the line of requiredDuringSchedulingIgnoredDuringExecution, not of the document
	if !strings.HasSuffix(f.File, "cuda13-job.yaml") || f.Line != 12 {
		t.Errorf("at %s:%d, want cuda13-job.yaml:12", f.File, f.Line)
	}
	// cuda12-job runs on lab-node-0; its only finding is that draining
	// that node needs --force (DRV023), not about where it runs.
	if got := about(fs, "cuda12-job"); len(got) != 1 || got[0].Rule != "DRV023" {
		t.Errorf("cuda12-job has findings: %+v", got)
	}
	if got := about(fs, "trainer"); len(got) != 0 {
		t.Errorf("trainer (4 replicas, 4 nodes) has findings: %+v", got)
	}
}

func TestLabTrainerWithANodeRemovedExceedsNodes(t *testing.T) {
	var paths []string
	for _, f := range []string{"namespace.yaml", "nodes.yaml", "trainer.yaml", "pdb.yaml"} { // no node3.yaml
		paths = append(paths, filepath.Join(lab, f))
	}
	f := one(t, run(t, Config{Paths: paths}), "DRV013", "trainer")
	want := "4 replicas need a node each (required podAntiAffinity on kubernetes.io/hostname) but only 3 may run them, so 1 stay Pending (3/3 nodes match)"
	if f.Message != want {
		t.Errorf("message %q, want %q", f.Message, want)
	}
	if f.Line != 22 { // - topologyKey: kubernetes.io/hostname
		t.Errorf("line %d, want 22 (the anti-affinity term)", f.Line)
	}
}

func TestCordonedNodeCountsAgainstAntiAffinity(t *testing.T) {
	dir := t.TempDir()
	node3, err := os.ReadFile(filepath.Join(lab, "node3.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cordoned := strings.Replace(string(node3), "spec: {}", "spec:\n  unschedulable: true", 1)
	if err := os.WriteFile(filepath.Join(dir, "node3.yaml"), []byte(cordoned), 0o644); err != nil {
		t.Fatal(err)
	}
	paths := []string{filepath.Join(lab, "nodes.yaml"), filepath.Join(lab, "trainer.yaml"), dir}
	f := one(t, run(t, Config{Paths: paths}), "DRV013", "trainer")
	if !strings.HasSuffix(f.Message, "(3/4 nodes match: 1 node(s) were unschedulable)") {
		t.Errorf("message %q lacks the scheduler's reason", f.Message)
	}
}

func TestGtOnVersionIDNeverMatches(t *testing.T) {
	fs := run(t, Config{Paths: []string{lab, fixture("gt-version-id")}})
	one(t, fs, "DRV010", "os-gt")
	f := one(t, fs, "DRV011", "os-gt")
	if !strings.Contains(f.Message, "VERSION_ID=22.04 on lab-node-0 is not an integer") || f.Node != "lab-node-0" {
		t.Errorf("message %q node %q", f.Message, f.Node)
	}
	if f.Line != 20 { // the VERSION_ID requirement, not the branch one above it
		t.Errorf("line %d, want 20", f.Line)
	}
	if f.Severity != policy.Error || f.Title != "non-integer-gt-lt" {
		t.Errorf("severity %s title %s", f.Severity, f.Title)
	}
}

func TestTypoKeyIsUnknown(t *testing.T) {
	fs := run(t, Config{Paths: []string{lab, fixture("typo-key")}})
	f := one(t, fs, "DRV014", "typo-selector")
	if !strings.HasSuffix(f.Message, "did you mean nvidia.com/gpu.present?") || f.Line != 16 {
		t.Errorf("%q at line %d", f.Message, f.Line)
	}
	if f.Severity != policy.Warning || f.Title != "unknown-label-key" {
		t.Errorf("severity %s title %s", f.Severity, f.Title)
	}
	one(t, fs, "DRV010", "typo-selector") // a required key no node carries matches nothing
	f = one(t, fs, "DRV014", "nightly")
	if !strings.HasSuffix(f.Message, "did you mean nvidia.com/cuda.driver.major?") || f.Line != 44 {
		t.Errorf("%q at line %d", f.Message, f.Line)
	}
	if got := find(fs, "DRV010", "nightly"); len(got) != 0 {
		t.Errorf("a preferred term cannot make a pod unschedulable: %+v", got)
	}
	if got := about(fs, "exporter"); len(got) != 0 {
		t.Errorf("DoesNotExist on an absent key is intent: %+v", got)
	}
}

func TestCUDA13ImageOnA570Node(t *testing.T) {
	fs := run(t, Config{Paths: []string{lab, fixture("cuda-floor")}})
	f := one(t, fs, "DRV012", "cuda13-loose")
	if f.Node != "gpu-570" || !strings.Contains(f.Message, "needs driver branch >= 580") || f.Line != 22 {
		t.Errorf("node %q message %q line %d", f.Node, f.Message, f.Line)
	}
	if f.Severity != policy.Error || f.Title != "cuda-driver-too-old" {
		t.Errorf("severity %s title %s", f.Severity, f.Title)
	}
	if got := find(fs, "DRV012", "cuda13-strict-affinity"); len(got) != 0 {
		t.Errorf("affinity requiring 580 admits no older node: %+v", got)
	}
	f = one(t, fs, "DRV012", "annotated")
	if f.Node != "lab-node-1" || !strings.Contains(f.Message, "annotation drvcheck.io/min-driver-branch=550 on the pod template") {
		t.Errorf("node %q message %q", f.Node, f.Message)
	}
	f = one(t, fs, "DRV012", "bad-annotation")
	if !strings.Contains(f.Message, `"r580" is not a driver branch`) || f.Line != 90 {
		t.Errorf("%q at line %d", f.Message, f.Line)
	}
}

// The image table is extended from --data, and --cuda-compat strict takes
// the toolkit's own floor: pytorch 24.07 as CUDA 12.5.1 needs 525 (minor)
// or 555 (strict).
func TestCUDACompatAndDataTable(t *testing.T) {
	data := filepath.Join(t.TempDir(), "cuda.yaml")
	table := "drvcheck:\n  cuda:\n    images:\n      nvcr.io/nvidia/pytorch:\n        \"24.07\": \"12.5.1\"\n"
	if err := os.WriteFile(data, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	minor := run(t, Config{Paths: []string{lab}, Rules: config.Rules{Data: []string{data}}})
	if got := find(minor, "DRV012", "cuda12-job"); len(got) != 0 {
		t.Errorf("minor: %+v", got)
	}
	strict := run(t, Config{Paths: []string{lab}, Rules: config.Rules{Data: []string{data}, CUDACompat: "strict"}})
	f := one(t, strict, "DRV012", "cuda12-job")
	if f.Node != "lab-node-0" || !strings.Contains(f.Message, ">= 555") || !strings.Contains(f.Message, "--data") {
		t.Errorf("strict: node %q message %q", f.Node, f.Message)
	}
	f = one(t, strict, "DRV012", "trainer")
	if !strings.Contains(f.Message, "4 GPU nodes with an older branch: lab-node-0 (550), lab-node-1 (535)") {
		t.Errorf("strict trainer: %q", f.Message)
	}
}

func TestBadCUDASettingsAreErrors(t *testing.T) {
	if _, err := Check(context.Background(), Config{Paths: []string{lab}, Rules: config.Rules{CUDACompat: "loose"}}); err == nil {
		t.Error("--cuda-compat loose accepted")
	}
	data := filepath.Join(t.TempDir(), "cuda.yaml")
	if err := os.WriteFile(data, []byte("drvcheck:\n  cuda:\n    images:\n      r: [\"12.4\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Check(context.Background(), Config{Paths: []string{lab}, Rules: config.Rules{Data: []string{data}}})
	if err == nil || !strings.Contains(err.Error(), `drvcheck.cuda.images["r"]`) {
		t.Errorf("malformed table: %v", err)
	}
}

func TestOwnedWorkloadIsReportedOnItsOwner(t *testing.T) {
	fs := run(t, Config{Paths: []string{lab, fixture("owned")}})
	one(t, fs, "DRV010", "pinned")
	if got := about(fs, "pinned-5d4f"); len(got) != 0 {
		t.Errorf("the owned ReplicaSet is reported too: %+v", got)
	}
}

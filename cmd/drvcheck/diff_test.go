package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/operator/change"
	"github.com/drvcheck/drvcheck/internal/plan"
)

// diffJSON runs drvcheck diff base head over the change fixture's fleet.
func diffJSON(t *testing.T, base, head string, extra ...string) (plan.Change, int) {
	t.Helper()
	args := append([]string{"diff", opFile("change/" + base), opFile("change/" + head), opFile("change/nodes.yaml"),
		opFile("rollout/workloads.yaml"), "--matrix", opFile("change/images.csv"), "-o", "json", "--operator-version", "v26.7.0"}, extra...)
	r := drv(t, args...)
	if r.code == exitError {
		t.Fatalf("diff %s %s: %s", base, head, r.stderr)
	}
	var c plan.Change
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	return c, r.code
}

func changedPaths(c plan.Change) []string {
	var out []string
	for _, s := range c.Scopes {
		for _, f := range s.Fields {
			out = append(out, f.Class+" "+f.Path)
		}
	}
	return out
}

// The chart v26.7.0's ClusterPolicy changed three ways (issue 27's
// cases), with the answers the operator's source gives: a label is not in
// DRIVER_CONFIG_DIGEST (transforms_test.go:4828-4889), the driver
// manager's image and the driver's are (driver_config_digest.go:81-86).
// The fleet's trainer budget refuses every eviction, so only a rollout
// that deletes GPU pods meets it.
func TestDiffOperatorChanges(t *testing.T) {
	c, code := diffJSON(t, "base.yaml", "labels.yaml")
	if c.Verdict != change.RestartOnly || code != 0 || !slices.Equal(changedPaths(c), []string{"template spec.daemonsets.labels.team"}) {
		t.Fatalf("labels: %s (exit %d) %v", c.Verdict, code, changedPaths(c))
	}
	for _, n := range c.Rolling.Nodes {
		if n.Outcome != plan.Upgraded || len(n.Evicted) != 0 || len(n.Why) != 0 || !strings.Contains(n.Note, "restart-only") {
			t.Errorf("labels: %+v", n)
		}
	}

	c, code = diffJSON(t, "base.yaml", "manager.yaml")
	if c.Verdict != change.FullRollout || code != 1 || !slices.Equal(changedPaths(c), []string{"digest spec.driver.manager.version"}) {
		t.Fatalf("manager: %s (exit %d) %v", c.Verdict, code, changedPaths(c))
	}
	failed := 0
	for _, n := range c.Rolling.Nodes {
		if n.Outcome == plan.Failed {
			failed++
		}
	}
	if failed != 1 || !c.Rolling.Halts {
		t.Errorf("manager: the budget's refusal is not met: %+v", c.Rolling.Nodes)
	}

	c, _ = diffJSON(t, "base.yaml", "driver.yaml")
	if c.Verdict != change.FullRollout || !slices.Equal(changedPaths(c), []string{"digest spec.driver.version"}) || c.Rolling == nil || len(c.Rolling.Nodes) != 3 {
		t.Fatalf("driver: %s %v %+v", c.Verdict, changedPaths(c), c.Rolling)
	}

	c, code = diffJSON(t, "base.yaml", "base.yaml")
	if c.Verdict != change.NoOp || c.Rolling != nil || code != 0 {
		t.Errorf("no change: %s %+v", c.Verdict, c.Rolling)
	}

	// Before v26.7 nothing is restart-only: the operator had no digest.
	c, _ = diffJSON(t, "base.yaml", "labels.yaml", "--operator-version", "v25.10.1")
	if c.Verdict != change.FullRollout || !strings.Contains(c.Scopes[0].Why, "no restart-only upgrades") {
		t.Errorf("v25.10: %s %+v", c.Verdict, c.Scopes)
	}
}

// diff --diff-base REF compares the working tree with the merge base.
func TestDiffAgainstTheMergeBase(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	writeFile(t, filepath.Join(dir, "fleet", "clusterpolicy.yaml"), readFile(t, opFile("change/base.yaml")))
	writeFile(t, filepath.Join(dir, "fleet", "nodes.yaml"), readFile(t, opFile("change/nodes.yaml")))
	writeFile(t, filepath.Join(dir, "images.csv"), readFile(t, opFile("change/images.csv")))
	git("add", ".")
	git("commit", "-qm", "base")
	writeFile(t, filepath.Join(dir, "fleet", "clusterpolicy.yaml"), readFile(t, opFile("change/manager.yaml")))
	t.Chdir(dir)
	r := drv(t, "diff", "--diff-base", "HEAD", "fleet", "--matrix", "images.csv", "--operator-version", "v26.7.0")
	if r.code != 0 || !strings.Contains(r.stdout, "Operator change the merge base ") ||
		!strings.Contains(r.stdout, "digest   spec.driver.manager.version: v0.12.0 → v0.12.1") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// What the review of diff found, each held: the operator's version
// unknown promises no restart-only; a node that loses its driver pod is
// named; the chart's values as the two sides; nodes absent from the base
// take their scope's change; hostPaths.rootFS reaches every NVIDIADriver.
func TestDiffReviewCases(t *testing.T) {
	// No operator version in the inputs: restart-only is not promised.
	r := drv(t, "diff", opFile("change/base.yaml"), opFile("change/labels.yaml"), opFile("change/nodes.yaml"), "--matrix", opFile("change/images.csv"))
	if !strings.HasPrefix(r.stdout, "Operator change") || !strings.Contains(strings.SplitN(r.stdout, "\n", 2)[0], "full rollout") ||
		!strings.Contains(r.stdout, "the operator's version is not in the inputs") {
		t.Errorf("assumed version:\n%s%s", r.stdout, r.stderr)
	}

	dir := t.TempDir()
	values := func(name, body string) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, body)
		return p
	}
	// Values files as OLD and NEW, the fleet shared.
	a := values("a.yaml", "operator: {version: v26.7.0}\ndriver: {version: \"595.91.07\", manager: {version: v0.12.0}}\n")
	b := values("b.yaml", "operator: {version: v26.7.0}\ndriver: {version: \"610.57.04\", manager: {version: v0.12.0}}\n")
	images := values("images.csv", "image\nnvcr.io/nvidia/driver:595.91.07-ubuntu22.04\nnvcr.io/nvidia/driver:610.57.04-ubuntu22.04\nnvcr.io/nvidia/cloud-native/k8s-driver-manager:v0.12.0\n")
	c, _ := diffJSONArgs(t, "diff", a, b, opFile("change/nodes.yaml"), "--matrix", images)
	if c.Verdict != change.FullRollout || !slices.Equal(changedPaths(c), []string{"digest driver.version"}) {
		t.Errorf("values: %s %v", c.Verdict, changedPaths(c))
	}

	// The driver turned off: every node loses its driver pod.
	off := values("off.yaml", strings.Replace(readFile(t, opFile("change/base.yaml")), "    enabled: true\n    useNvidiaDriverCRD", "    enabled: false\n    useNvidiaDriverCRD", 1))
	c, _ = diffJSONArgs(t, "diff", opFile("change/base.yaml"), off, opFile("change/nodes.yaml"), "--matrix", opFile("change/images.csv"), "--operator-version", "v26.7.0")
	if c.Verdict != change.Removed || len(c.Nodes) != 3 || c.Nodes[0].Kind != change.Removed {
		t.Errorf("driver off: %s %+v", c.Verdict, c.Nodes)
	}

	// The base side has no nodes (the PR adds the snapshot): the nodes
	// take their scope's change, not "first driver pod".
	c, _ = diffJSONArgs(t, "diff", opFile("change/base.yaml"), opFile("change/driver.yaml"), "--matrix", opFile("change/images.csv"))
	if c.Verdict != change.FullRollout || len(c.Nodes) != 0 {
		t.Errorf("no nodes: %s %+v", c.Verdict, c.Nodes)
	}
	withNodes := values("head/clusterpolicy.yaml", readFile(t, opFile("change/driver.yaml")))
	writeFile(t, filepath.Join(dir, "head", "nodes.yaml"), readFile(t, opFile("change/nodes.yaml")))
	c, _ = diffJSONArgs(t, "diff", opFile("change/base.yaml"), filepath.Dir(withNodes), "--matrix", opFile("change/images.csv"))
	if c.Verdict != change.FullRollout || c.Nodes[0].Kind != change.FullRollout || !strings.Contains(c.Nodes[0].Why, "not among the base's nodes") {
		t.Errorf("nodes new in head: %s %+v", c.Verdict, c.Nodes)
	}
}

func diffJSONArgs(t *testing.T, args ...string) (plan.Change, int) {
	t.Helper()
	r := drv(t, append(args, "-o", "json")...)
	if r.code == exitError {
		t.Fatalf("%v: %s", args, r.stderr)
	}
	var c plan.Change
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	return c, r.code
}

package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/operator"
	"github.com/drvcheck/drvcheck/internal/plan"
	"github.com/drvcheck/drvcheck/internal/render"
)

// diffJSON runs drvcheck diff base head over the change fixture's fleet.
func diffJSON(t *testing.T, base, head string, extra ...string) (render.Change, int) {
	t.Helper()
	args := append([]string{"diff", opFile("change/" + base), opFile("change/" + head), opFile("change/nodes.yaml"),
		opFile("rollout/workloads.yaml"), "--matrix", opFile("change/images.csv"), "-o", "json"}, extra...)
	r := drv(t, args...)
	if r.code == exitError {
		t.Fatalf("diff %s %s: %s", base, head, r.stderr)
	}
	var c render.Change
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	return c, r.code
}

func changedPaths(c render.Change) []string {
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
	if c.Verdict != operator.RestartOnly || code != 0 || !slices.Equal(changedPaths(c), []string{"template spec.daemonsets.labels.team"}) {
		t.Fatalf("labels: %s (exit %d) %v", c.Verdict, code, changedPaths(c))
	}
	for _, n := range c.Rolling.Nodes {
		if n.Outcome != plan.Upgraded || len(n.Evicted) != 0 || len(n.Why) != 0 || !strings.Contains(n.Note, "restart-only") {
			t.Errorf("labels: %+v", n)
		}
	}

	c, code = diffJSON(t, "base.yaml", "manager.yaml")
	if c.Verdict != operator.FullRollout || code != 1 || !slices.Equal(changedPaths(c), []string{"digest spec.driver.manager.version"}) {
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
	if c.Verdict != operator.FullRollout || !slices.Equal(changedPaths(c), []string{"digest spec.driver.version"}) || c.Rolling == nil || len(c.Rolling.Nodes) != 3 {
		t.Fatalf("driver: %s %v %+v", c.Verdict, changedPaths(c), c.Rolling)
	}

	c, code = diffJSON(t, "base.yaml", "base.yaml")
	if c.Verdict != operator.NoOp || c.Rolling != nil || code != 0 {
		t.Errorf("no change: %s %+v", c.Verdict, c.Rolling)
	}

	// Before v26.7 nothing is restart-only: the operator had no digest.
	c, _ = diffJSON(t, "base.yaml", "labels.yaml", "--operator-version", "v25.10.1")
	if c.Verdict != operator.FullRollout || !strings.Contains(c.Scopes[0].Why, "no restart-only upgrades") {
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
	r := drv(t, "diff", "--diff-base", "HEAD", "fleet", "--matrix", "images.csv")
	if r.code != 0 || !strings.Contains(r.stdout, "Operator change the merge base ") ||
		!strings.Contains(r.stdout, "digest   spec.driver.manager.version: v0.12.0 → v0.12.1") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

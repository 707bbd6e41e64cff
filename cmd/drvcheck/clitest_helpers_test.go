package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/drvcheck/drvcheck/internal/testcluster"
	"github.com/drvcheck/drvcheck/policy"
)

// result is one in-process run of drvcheck.
type result struct {
	stdout, stderr string
	code           int
}

// drv runs drvcheck with args in-process, as the binary would.
func drv(t *testing.T, args ...string) result {
	t.Helper()
	return drvStdin(t, "", args...)
}

// drvStdin is drv with stdin; every in-process run of the tests goes
// through it.
func drvStdin(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	code := run(ctx, &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut}, args)
	return result{out.String(), errOut.String(), code}
}

// jsonReport is `-o json`.
type jsonReport struct {
	Findings []policy.Finding `json:"findings"`
	Summary  policy.Summary   `json:"summary"`
}

// drvJSON runs drvcheck with -o json and decodes the report; exit codes 0
// and 1 are both fine, 2 fails the test.
func drvJSON(t *testing.T, args ...string) jsonReport {
	t.Helper()
	r := drv(t, append(args, "-o", "json")...)
	if r.code == exitError {
		t.Fatalf("drvcheck %s: exit 2: %s", strings.Join(args, " "), r.stderr)
	}
	var rep jsonReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("drvcheck %s -o json: %v\n%s", strings.Join(args, " "), err, r.stdout)
	}
	return rep
}

// byRule returns the findings of one rule.
func (r jsonReport) byRule(rule string) []policy.Finding {
	var out []policy.Finding
	for _, f := range r.Findings {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

// kubectl runs kubectl as the cluster's admin and fails t on error.
func kubectl(t *testing.T, c *testcluster.Cluster, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, errOut, err := c.Kubectl(ctx, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// waitFor polls cond for up to two minutes.
func waitFor(t *testing.T, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := testcluster.Poll(ctx, what, cond); err != nil {
		t.Fatal(err)
	}
}

// livePolicy is a custom rule that surfaces input.cluster and each GPU
// node's upgrade state as info findings, so tests read the live facts from
// drvcheck's own output.
const livePolicy = `package drvcheck.rules.livetest

import data.drvcheck.lib

meta := {"id": "LIVE900", "title": "live-facts", "severity": "info", "help": "test rule"}

findings contains f if {
	some p in input.cluster.pods
	p.scheduled == "False"
	f := lib.finding(meta, p.object, {"message": sprintf("unschedulable: %s", [p.scheduled_message])})
}

findings contains f if {
	some b in input.cluster.budgets
	b.processed
	b.disruptions_allowed == 0
	f := lib.finding(meta, b.object, {"message": sprintf("no disruption allowed; blocks draining %s", [concat(",", b.nodes)])})
}

findings contains f if {
	some n in lib.gpu_nodes
	f := lib.finding(meta, n.object, {"node": n.name, "message": sprintf("upgrade-state=%s", [n.upgrade_state])})
}
`

// writePolicy writes livePolicy into a new folder and returns it.
func writePolicy(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "live.rego"), []byte(livePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// labFile is the repository's copy of the lab's manifests.
func labFile(name string) string { return filepath.Join("..", "..", "testdata", "lab", name) }

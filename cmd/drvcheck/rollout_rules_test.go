package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The operator's rollout rules on testdata/operator/rollout: each case of
// the fixture gives its rule, at its severity, on its object and line, and
// the operator's own device plugin gives none.
func TestOperatorRolloutRules(t *testing.T) {
	repo := operatorRegistry(t, "570-5.15.0-119-generic-ubuntu22.04")
	rep := drvJSON(t, "check", opFile("rollout"), "--driver-repository", repo, "--cache-dir="+t.TempDir())
	var got []string
	for _, f := range rep.Findings {
		got = append(got, fmt.Sprintf("%s %s %s %s:%d", f.Rule, f.Severity, f.Object.String(), fileName(f.File), f.Line))
	}
	slices.Sort(got)
	want := []string{
		"DRV020 error PodDisruptionBudget/ml/trainer-pdb workloads.yaml:33",
		"DRV020 warning PodDisruptionBudget/apps/web-pdb workloads.yaml:62",
		"DRV025 error DaemonSet/mon/gpu-probe workloads.yaml:85",
		"DRV025 error Pod/ml/notebook workloads.yaml:137",
		"DRV026 warning Deployment/ml/trainer workloads.yaml:17",
		"DRV027 warning DaemonSet/mon/gpu-metrics workloads.yaml:108",
		"DRV028 error ClusterPolicy/cluster-policy clusterpolicy.yaml:14",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, f := range rep.Findings {
		if f.Rule == "DRV028" && !strings.Contains(f.Message, "1 of 4 managed node(s) are cordoned or NotReady (g3 NotReady), and maxUnavailable 25% allows 1") {
			t.Errorf("DRV028: %s", f.Message)
		}
		if f.Rule == "DRV020" && f.Severity == "error" && !strings.Contains(f.Message, "the GPU Operator's podDeletion on g0, g1, g2, g3 is refused") {
			t.Errorf("DRV020 names no phase: %s", f.Message)
		}
	}
}

// The same fleet under plan --all: g3 NotReady uses up maxUnavailable, so
// no node starts, and the scope says why.
func TestOperatorRolloutNothingStarts(t *testing.T) {
	repo := operatorRegistry(t, "570.86.15-5.15.0-119-generic-ubuntu22.04")
	r := drv(t, "plan", "--all", "--driver", "570.86.15", opFile("rollout"), "--driver-repository", repo, "--cache-dir="+t.TempDir(), "-o", "json")
	var plan struct {
		Scopes []struct {
			Halts bool
			Slots int
			Why   string
		}
		Nodes []struct{ Node, Outcome, State string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &plan); err != nil || r.code != 1 {
		t.Fatalf("exit %d, %v: %s%s", r.code, err, r.stdout, r.stderr)
	}
	if len(plan.Scopes) != 1 || !plan.Scopes[0].Halts || plan.Scopes[0].Slots != 0 ||
		!strings.Contains(plan.Scopes[0].Why, "maxUnavailable 1 (25%) is used up: 1 of 4 managed node(s) are unavailable (g3 NotReady)") {
		t.Errorf("scopes: %+v", plan.Scopes)
	}
	for _, n := range plan.Nodes {
		if n.Outcome != "not-started" || n.State != "upgrade-required" {
			t.Errorf("%+v", n)
		}
	}
}

func fileName(path string) string { return path[strings.LastIndex(path, "/")+1:] }

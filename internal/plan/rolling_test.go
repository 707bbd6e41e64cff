package plan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/runner"
)

func gpuNode(name string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Node
metadata:
  name: %s
  labels:
    kubernetes.io/hostname: %s
    nvidia.com/gpu.present: "true"
    nvidia.com/cuda.driver.major: "535"
    nvidia.com/cuda.driver.minor: "183"
    nvidia.com/cuda.driver.rev: "06"
    feature.node.kubernetes.io/kernel-version.full: 5.15.0-119-generic
    feature.node.kubernetes.io/system-os_release.ID: ubuntu
    feature.node.kubernetes.io/system-os_release.VERSION_ID: "22.04"`, name, name)
}

const web = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: x}]
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - topologyKey: kubernetes.io/hostname
            labelSelector: {matchLabels: {app: web}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web-pdb}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: web}}`

// fleet is three GPU nodes on 535 with a web Deployment across them, and
// what the rules say of them once every GPU node runs 550.90.07, against a
// matrix of rows (no matrix without rows).
func fleet(t *testing.T, rows ...string) (*drain.Model, After) {
	return fleetUpgrading(t, nil, rows...)
}

// fleetUpgrading is fleet with only nodes relabelled (all when empty).
func fleetUpgrading(t *testing.T, nodes []string, rows ...string) (*drain.Model, After) {
	t.Helper()
	dir := t.TempDir()
	manifests := filepath.Join(dir, "fleet.yaml")
	src := strings.Join([]string{gpuNode("n0"), gpuNode("n1"), gpuNode("n2"), web}, "\n---\n")
	if err := os.WriteFile(manifests, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := runner.Config{Paths: []string{manifests}, Upgrade: &runner.Upgrade{Driver: "550.90.07", Nodes: nodes}}
	if len(rows) > 0 {
		matrix := filepath.Join(dir, "matrix.csv")
		if err := os.WriteFile(matrix, []byte(catalog.MatrixHeader+"\n"+strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg.Matrix = []string{matrix}
	}
	inv, err := runner.Files(cfg)(false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := drain.New(inv)
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(context.Background(), cfg, runner.Files(cfg))
	if err != nil {
		t.Fatal(err)
	}
	return m, After{Facts: res.Facts, Catalog: res.Catalog, Findings: res.Findings}
}

const row550 = "550,5.15.0-119-generic,ubuntu22.04"

func outcomes(r *Rolling) string {
	var out []string
	for _, o := range r.Nodes {
		out = append(out, fmt.Sprintf("%s:%d:%s", o.Node, o.Batch, o.Outcome))
	}
	return strings.Join(out, " ")
}

// One node at a time, each evicted replica waits Pending (anti-affinity,
// one per node) until its node is uncordoned, and the budget recovers
// before the next node: no stall.
func TestRollingOneAtATimePasses(t *testing.T) {
	m, after := fleet(t, row550)
	r, err := Roll(m, after, RollingOptions{Options: Options{Driver: "550.90.07"}, MaxParallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.FirstStall != "" || outcomes(r) != "n0:1:upgraded n1:2:upgraded n2:3:upgraded" {
		t.Fatalf("%s, first stall %q", outcomes(r), r.FirstStall)
	}
	if len(r.Nodes[0].Pending) != 1 {
		t.Fatalf("n0's replica should wait Pending until n0 is uncordoned: %+v", r.Nodes[0])
	}
}

// Two at a time, n0's replica cannot land (n1 is cordoned, n2 holds a web
// pod), so the budget has no room left when n1 drains: n1 stalls.
func TestRollingTwoAtATimeStallsOnTheSecondNode(t *testing.T) {
	m, after := fleet(t, row550)
	r, err := Roll(m, after, RollingOptions{Options: Options{Driver: "550.90.07"}, MaxParallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.FirstStall != "n1" || outcomes(r) != "n0:1:upgraded n1:1:stalls n2:2:not-reached" {
		t.Fatalf("%s, first stall %q", outcomes(r), r.FirstStall)
	}
	o := r.Nodes[1]
	if o.State != "drain-required" || len(o.Why) != 1 || o.Why[0].Fix != "raise web-pdb maxUnavailable from 1 to 2" {
		t.Fatalf("n1: %+v", o)
	}
	if !strings.Contains(o.Why[0].What, "The disruption budget web-pdb needs 2 healthy pods and has 2 currently") {
		t.Fatalf("why: %s", o.Why[0].What)
	}
}

func TestRollingMissingImageStallsAfterTheDrain(t *testing.T) {
	m, after := fleet(t)
	r, err := Roll(m, after, RollingOptions{Options: Options{Driver: "550.90.07"}, MaxParallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.FirstStall != "n0" || r.Nodes[0].State != "pod-restart-required" {
		t.Fatalf("%s %+v", outcomes(r), r.Nodes[0])
	}
}

func TestNodePlanOnAFleet(t *testing.T) {
	m, after := fleet(t, row550)
	p, err := ForNode(m, after, "n1", Options{Driver: "550.90.07"})
	if err != nil {
		t.Fatal(err)
	}
	if !p.CanRun || p.Tag != "550-5.15.0-119-generic-ubuntu22.04" {
		t.Fatalf("%+v", p)
	}
	if _, err := ForNode(m, after, "n9", Options{Driver: "550.90.07"}); err == nil || err.Error() != "node n9 not found" {
		t.Fatalf("unknown node: %v", err)
	}
}

// The image step reads the rules: with no row for the node's kernel after
// the upgrade, DRV001's finding (message and fix) blocks it, and the audit
// step notes the other nodes the audit still reports.
func TestNodePlanImageStepReadsTheFindings(t *testing.T) {
	m, after := fleetUpgrading(t, []string{"n1"}, "550,5.15.0-120-generic,ubuntu22.04")
	p, err := ForNode(m, after, "n1", Options{Driver: "550.90.07"})
	if err != nil {
		t.Fatal(err)
	}
	img := p.Steps[0]
	if p.CanRun || img.Status != Blocked || len(img.Blockers) != 1 {
		t.Fatalf("image step %+v", img)
	}
	if b := img.Blockers[0]; b.What != "no precompiled driver image 550-5.15.0-119-generic-ubuntu22.04 in "+after.Catalog.Describe() ||
		b.Fix != "build and push 550-5.15.0-119-generic-ubuntu22.04, or add the row 550,5.15.0-119-generic,ubuntu22.04 to the support matrix" {
		t.Fatalf("blocker %+v", b)
	}
	// Only n1 is relabelled: the others keep their 535 tag, which no row has.
	want := []string{
		"the audit still reports n0 MISSING 535-5.15.0-119-generic-ubuntu22.04",
		"the audit still reports n2 MISSING 535-5.15.0-119-generic-ubuntu22.04",
	}
	if audit := p.Steps[5]; !slices.Equal(audit.Notes, want) {
		t.Fatalf("audit notes %q, want %q", audit.Notes, want)
	}
}

package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/inventory"
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

func fleet(t *testing.T) (*drain.Model, *catalog.Catalog) {
	t.Helper()
	src := strings.Join([]string{gpuNode("n0"), gpuNode("n1"), gpuNode("n2"), web}, "\n---\n")
	inv, err := inventory.Parse("fleet.yaml", []byte(src), false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := drain.New(inv)
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.New()
	cat.Add("matrix.csv", []string{"550-5.15.0-119-generic-ubuntu22.04"})
	return m, cat
}

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
	m, cat := fleet(t)
	r, err := Roll(m, cat, RollingOptions{Options: Options{Driver: "550.90.07"}, MaxParallel: 1})
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
	m, cat := fleet(t)
	r, err := Roll(m, cat, RollingOptions{Options: Options{Driver: "550.90.07"}, MaxParallel: 2})
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
	m, _ := fleet(t)
	r, err := Roll(m, catalog.New(), RollingOptions{Options: Options{Driver: "550.90.07"}, MaxParallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.FirstStall != "n0" || r.Nodes[0].State != "pod-restart-required" {
		t.Fatalf("%s %+v", outcomes(r), r.Nodes[0])
	}
}

func TestNodePlanOnAFleet(t *testing.T) {
	m, cat := fleet(t)
	p, err := ForNode(m, cat, "n1", Options{Driver: "550.90.07"})
	if err != nil {
		t.Fatal(err)
	}
	if !p.CanRun || p.Tag != "550-5.15.0-119-generic-ubuntu22.04" {
		t.Fatalf("%+v", p)
	}
	if _, err := ForNode(m, cat, "n9", Options{Driver: "550.90.07"}); err == nil || err.Error() != "node n9 not found" {
		t.Fatalf("unknown node: %v", err)
	}
}

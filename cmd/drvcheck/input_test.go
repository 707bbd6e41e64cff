package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite rego/testdata/lab_input.json from drvcheck input")

// labInput is the lab's input document, shared by the Go and the Rego tests
// (rego/embed.go), so that the Rego tests read the shapes Go really makes.
const labInput = "rego/testdata/lab_input.json"

// TestLabInputIsTheGolden: drvcheck input on the lab prints exactly the
// golden document the Rego tests read. Run from the repository root, so that
// the matrix's path in the document is the one a user types.
func TestLabInputIsTheGolden(t *testing.T) {
	t.Chdir("../..")
	r := drv(t, "input", "testdata/lab", "--matrix", "testdata/lab/support-matrix.csv")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if *update {
		if err := os.WriteFile(labInput, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(labInput)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal([]byte(r.stdout), want) {
		t.Errorf("drvcheck input testdata/lab differs from %s; if the change is meant, run go test ./cmd/drvcheck -run LabInput -update and review the diff:\n%s", labInput, r.stdout)
	}
}

// Without a source the catalog is not configured, and custom policies add
// every object as read (input.objects).
func TestInputFollowsTheFlags(t *testing.T) {
	r := drv(t, "input", lab, "--policy", pols+"/acme")
	if r.code != 0 || !bytes.Contains([]byte(r.stdout), []byte(`"configured": false`)) || !bytes.Contains([]byte(r.stdout), []byte(`"objects": [`)) {
		t.Fatalf("exit %d: %s%.400s", r.code, r.stderr, r.stdout)
	}
	if r := drv(t, "input", lab+"/missing.yaml"); r.code != 2 || r.stdout != "" {
		t.Fatalf("missing path: exit %d, stdout %q", r.code, r.stdout)
	}
}

// replicas: 2147483647 is valid: the input counts them all in their budget
// (the nodes hold what the kubelet admits, the rest waits on no node), in
// seconds and without gigabytes.
func TestHugeReplicasAreCountedInTheInput(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	doc := `apiVersion: v1
kind: Node
metadata: {name: n0, labels: {nvidia.com/gpu.present: "true"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: big}
spec:
  replicas: 2147483647
  selector: {matchLabels: {app: big}}
  template:
    metadata: {labels: {app: big}}
    spec: {containers: [{name: c, image: x}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: big}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: big}}
`
	if err := os.WriteFile(big, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	r := drv(t, "input", big)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var in struct {
		PDBs []struct {
			Pods, Expected, Healthy, Allowed int
			Nodes                            []string
		}
		Drain map[string]struct{ Pods int }
	}
	if err := json.Unmarshal([]byte(r.stdout), &in); err != nil {
		t.Fatal(err)
	}
	if len(in.PDBs) != 1 {
		t.Fatalf("pdbs %+v", in.PDBs)
	}
	if p := in.PDBs[0]; p.Pods != 2147483647 || p.Expected != 2147483647 || p.Healthy != 2147483647 || p.Allowed != 1 || len(p.Nodes) != 1 {
		t.Fatalf("pdb %+v", p)
	}
	if in.Drain["n0"].Pods != 110 {
		t.Fatalf("drain of n0 %+v", in.Drain["n0"])
	}
}

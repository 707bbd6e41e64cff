package main

import (
	"bytes"
	"flag"
	"os"
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

package render

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/drvcheck/drvcheck/internal/exceptions"
	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/policy"
)

// fixture is a report that exercises every location case: a file inside
// the repository (with a space in its name), a line of 0, a file outside the
// repository, standard input, a live object without a file, a rule without
// a meta, and a suppressed finding.
func fixture(t *testing.T) (Report, Options) {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "sub")
	node := object.Ref{Kind: "Node", Name: "gpu-1"}
	deploy := object.Ref{Kind: "Deployment", Namespace: "ml", Name: "trainer"}
	pdb := object.Ref{Kind: "PodDisruptionBudget", Namespace: "ml", Name: "trainer-pdb"}
	r := Report{
		Rules: []policy.Rule{
			{ID: "DRV001", Title: "missing-driver-image", Severity: "error", Help: "Push the image."},
			{ID: "DRV010", Title: "unschedulable-affinity", Severity: "error", Help: "Fix the affinity."},
		},
		Findings: []policy.Finding{
			{Rule: "DRV010", Title: "unschedulable-affinity", Severity: "error", Object: deploy,
				Message: "matches none of 4 nodes", File: "../k8s/pool a.yaml", Line: 14},
			{Rule: "DRV001", Title: "missing-driver-image", Severity: "error", Object: node, Node: "gpu-1",
				Tag: "550-6.8.0-52-generic-ubuntu24.04", Message: "no image", File: filepath.Join(root, "k8s", "nodes.yaml")},
			{Rule: "CUSTOM1", Title: "custom", Severity: "info", Object: node, Message: "note this",
				File: "/elsewhere/x.yaml", Line: 3},
			{Rule: "DRV001", Title: "missing-driver-image", Severity: "warning", Object: node, Message: "from stdin",
				File: "-", Line: 2},
			{Rule: "DRV001", Title: "missing-driver-image", Severity: "warning", Object: node, Message: "live"},
		},
		Suppressed: []exceptions.Suppressed{{
			Finding: policy.Finding{Rule: "DRV010", Title: "unschedulable-affinity", Severity: "error", Object: pdb,
				Message: "blocks drain", File: filepath.Join(root, "k8s", "pdb.yaml"), Line: 5},
			Reason: "budget is intended", Source: exceptions.SourceAnnotation,
		}},
		Objects: []object.Ref{node, deploy, pdb},
		Summary: policy.Summary{Errors: 2, Warnings: 2, Suppressed: 1, GPUNodes: 1, Objects: 3},
	}
	return r, Options{Root: root, Dir: dir, Version: "test"}
}

package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/config"
	"github.com/drvcheck/drvcheck/policy"
)

// On the lab, trainer-pdb (minAvailable 4 over 4 replicas) is DRV020, placed
// on its minAvailable line, and the bare cuda12-job on lab-node-0 is DRV023,
// placed on the Pod's metadata (where an owner would be named).
func TestLabDrainFindings(t *testing.T) {
	res, err := Check(context.Background(), Config{Paths: []string{"../../testdata/lab"}, Registry: config.Registry{Matrix: []string{"../../testdata/lab/support-matrix.csv"}}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]policy.Finding{}
	for _, f := range res.Findings {
		if strings.HasPrefix(f.Rule, "DRV02") || strings.HasPrefix(f.Rule, "DRV03") {
			got[f.Rule+" "+f.Object.Name] = f
		}
	}
	pdb, ok := got["DRV020 trainer-pdb"]
	if !ok || pdb.Severity != policy.Error || pdb.Line != 7 || !strings.HasSuffix(pdb.File, "pdb.yaml") {
		t.Fatalf("DRV020 on trainer-pdb: %+v (all: %v)", pdb, got)
	}
	if !strings.Contains(pdb.Message, "lower trainer-pdb minAvailable from 4 to 3") {
		t.Fatalf("message %q", pdb.Message)
	}
	if f, ok := got["DRV023 cuda12-job"]; !ok || f.Node != "lab-node-0" || f.Object.Kind != "Pod" ||
		!strings.HasSuffix(f.File, "cuda12-job.yaml") || f.Line != 3 || !strings.Contains(f.Message, "draining lab-node-0 needs --force") {
		t.Fatalf("DRV023 on cuda12-job: %+v", f)
	}
	if len(got) != 2 {
		t.Fatalf("drain findings %v, want DRV020 trainer-pdb and DRV023 cuda12-job only", got)
	}
}

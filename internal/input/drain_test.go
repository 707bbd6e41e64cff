package input

import (
	"encoding/json"
	"testing"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/load"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
)

func TestLabPDBsAndDrain(t *testing.T) {
	inv, err := inventory.Read([]string{"../../testdata/lab"}, load.Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := drain.New(inv)
	if err != nil {
		t.Fatal(err)
	}
	doc := Build(inv, nodefacts.All(inv.Nodes), catalog.New(), Options{Drain: m})
	// Round-trip through JSON: the document must be JSON-shaped.
	raw, err := json.Marshal(map[string]any{"pdbs": doc["pdbs"], "drain": doc["drain"]})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		PDBs []struct {
			Name, Selector, Rule, Status, Change string
			MinAvailable                         string `json:"min_available"`
			Expected, Desired, Healthy, Allowed  int
			Pods                                 int
			Nodes                                []string
			ChangeField                          string `json:"change_field"`
			Templates                            []map[string]string
		}
		Drain map[string]struct {
			Pods       int
			NeedsForce []struct{ Pod string } `json:"needs_force"`
			Refusals   []struct {
				Name, Cause, Change string
				Code                int
				Pods                []string
			}
		}
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	p := got.PDBs[0]
	if len(got.PDBs) != 1 || p.Name != "trainer-pdb" || p.Selector != "app=trainer" || p.Rule != "minAvailable 4" || p.MinAvailable != "4" ||
		p.Expected != 4 || p.Desired != 4 || p.Healthy != 4 || p.Allowed != 0 || p.Pods != 4 || p.Status != "computed" ||
		len(p.Nodes) != 4 || len(p.Templates) != 1 || p.Change != "lower trainer-pdb minAvailable from 4 to 3" || p.ChangeField != "/spec/minAvailable" {
		t.Fatalf("pdbs %+v", got.PDBs)
	}
	if len(got.Drain) != 4 {
		t.Fatalf("drain facts for %d nodes, want the 4 GPU nodes", len(got.Drain))
	}
	n0, n1 := got.Drain["lab-node-0"], got.Drain["lab-node-1"]
	if n0.Pods != 2 || len(n0.NeedsForce) != 1 || n0.NeedsForce[0].Pod != "gpu-drv/cuda12-job" {
		t.Fatalf("lab-node-0 %+v", n0)
	}
	if len(n1.Refusals) != 1 || n1.Refusals[0].Code != 429 || n1.Refusals[0].Change != "lower trainer-pdb minAvailable from 4 to 3" || n1.Refusals[0].Pods[0] != "gpu-drv/trainer-1" {
		t.Fatalf("lab-node-1 %+v", n1)
	}
}

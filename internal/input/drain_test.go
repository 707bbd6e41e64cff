package input

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/load"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/placement"
)

func TestLabPDBsAndDrain(t *testing.T) {
	inv, err := inventory.Read(context.Background(), []string{"../../testdata/lab"}, load.Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := placement.New(inv)
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

// A pod with an emptyDir volume points at that volume in its workload's
// manifest, whatever kind made it; a bare pod without a controller at
// where its owner would be named.
func TestDrainFieldsPointIntoTheWorkload(t *testing.T) {
	src := `apiVersion: v1
kind: Node
metadata:
  name: gpu
  labels: {kubernetes.io/hostname: gpu, nvidia.com/gpu.present: "true"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: cache, namespace: ml}
spec:
  replicas: 1
  selector: {matchLabels: {app: cache}}
  template:
    metadata: {labels: {app: cache}}
    spec:
      containers: [{name: c, image: x}]
      volumes:
      - {name: conf, configMap: {name: c}}
      - {name: scratch, emptyDir: {}}
---
apiVersion: v1
kind: Pod
metadata: {name: bare, namespace: ml}
spec:
  containers: [{name: c, image: x}]
`
	inv, err := inventory.Parse("w.yaml", []byte(src), false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := placement.New(inv)
	if err != nil {
		t.Fatal(err)
	}
	d := build(inv, catalog.New(), Options{Drain: m})["drain"].(map[string]any)["gpu"].(map[string]any)
	empty := d["needs_delete_emptydir"].([]any)
	force := d["needs_force"].([]any)
	if len(empty) != 1 || empty[0].(map[string]any)["field"] != "/spec/template/spec/volumes/1/emptyDir" {
		t.Errorf("emptyDir entries %v", empty)
	}
	if len(force) != 1 || force[0].(map[string]any)["field"] != "/metadata/ownerReferences" {
		t.Errorf("force entries %v", force)
	}
}

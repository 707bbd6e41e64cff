package workload

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/drvcheck/drvcheck/internal/cuda"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/load"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
)

func inventoryOf(t *testing.T, paths ...string) *inventory.Inventory {
	t.Helper()
	inv, err := inventory.Read(context.Background(), paths, load.Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

const labDir = "../../../testdata/lab/k8s"

func workloadsByName(t *testing.T, pol cuda.Policy, paths ...string) map[string]map[string]any {
	t.Helper()
	ws := sectionsOf(inventoryOf(t, paths...), pol)
	out := map[string]map[string]any{}
	for _, w := range ws {
		e := w.(map[string]any)
		out[e["object"].(map[string]any)["name"].(string)] = e
	}
	return out
}

func TestLabWorkloadFacts(t *testing.T) {
	ws := workloadsByName(t, cuda.Policy{}, labDir)
	if len(ws) != 3 {
		t.Fatalf("%d workloads, want cuda12-job, cuda13-job, trainer", len(ws))
	}
	p := ws["cuda12-job"]["placement"].(map[string]any)
	if p["total"] != 4 || p["eligible"] != 1 || p["matching"] != 1 {
		t.Errorf("cuda12-job placement %v, want 1/4 (lab-node-0 only)", p)
	}
	a := ws["trainer"]["anti_affinity"].(map[string]any)
	if a["self"] != true || a["domains"] != 4 || a["unlimited"] != false || ws["trainer"]["replicas"] != 4 {
		t.Errorf("trainer anti-affinity %v replicas %v", a, ws["trainer"]["replicas"])
	}
	if a := ws["cuda13-job"]["anti_affinity"].(map[string]any); a["self"] != false {
		t.Errorf("cuda13-job anti-affinity %v", a)
	}
	if c := ws["cuda13-job"]["cuda"].(map[string]any); c["floor"] != 0 || c["compat"] != "minor" {
		t.Errorf("pytorch 25.03 has no sourced CUDA release, yet cuda %v", c)
	}
}

func TestOlderNodesAreCountedAndCapped(t *testing.T) {
	ws := workloadsByName(t, cuda.Policy{}, labDir, "../../../testdata/scheduling/cuda-floor")
	c := ws["cuda13-loose"]["cuda"].(map[string]any)
	older := c["older_nodes"].([]any)
	if c["floor"] != 580 || c["older_count"] != 1 || len(older) != 1 || older[0].(map[string]any)["name"] != "gpu-570" {
		t.Fatalf("cuda13-loose cuda %v", c)
	}
	if c["cuda"] != "13.0.0" || c["image"] != "nvcr.io/nvidia/cuda:13.0.0-base-ubuntu24.04" {
		t.Errorf("cuda13-loose image facts %v", c)
	}
	want := "/spec/template/spec/containers/1/image"
	if c["field"] != want {
		t.Errorf("field %v, want %v", c["field"], want)
	}
	var hits []olderHit
	for i := range 20 {
		hits = append(hits, olderHit{fmt.Sprintf("n%02d", 19-i), 535})
	}
	o := listOlder(hits)
	if o.count != 20 || len(o.list) != maxListedNodes || o.list[0].(map[string]any)["name"] != "n00" {
		t.Errorf("listed %v of %d, want the first %d by name of 20", o.list, o.count, maxListedNodes)
	}
}

// Everything in the document must be a JSON-shaped value (OPA converts it
// without reflection, and custom rules rely on the shapes).
func TestWorkloadsAreJSONShaped(t *testing.T) {
	paths := []string{labDir}
	for _, d := range []string{"gt-version-id", "typo-key", "cuda-floor", "owned"} {
		paths = append(paths, filepath.Join("../../../testdata/scheduling", d))
	}
	if err := jsonShaped(sectionsOf(inventoryOf(t, paths...), cuda.Policy{}), "workloads"); err != nil {
		t.Fatal(err)
	}
}

func jsonShaped(v any, at string) error {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if err := jsonShaped(e, at+"."+k); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range x {
			if err := jsonShaped(e, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case string, bool, int, int64, float64:
	default:
		return fmt.Errorf("%s is a %T", at, v)
	}
	return nil
}

func TestSuggest(t *testing.T) {
	c := &workloadFacts{suggestions: map[string]string{}, labelKeys: map[string]bool{}}
	for _, k := range []string{"nvidia.com/gpu.present", "nvidia.com/gpu.product", "nvidia.com/cuda.driver.major", "kubernetes.io/hostname"} {
		c.labelKeys[k] = true
		c.sortedKeys = append(c.sortedKeys, k)
	}
	cases := map[string]string{
		"nvidia.com/gpu.presnt":                "nvidia.com/gpu.present",
		"nvidia.com/gpu.Present":               "nvidia.com/gpu.present",
		"nvidia.com/cuda.driver-version.major": "nvidia.com/cuda.driver.major", // the other gpu-feature-discovery generation
		"kubernetes.io/hostnme":                "kubernetes.io/hostname",
		"example.com/pool":                     "",
		"nvidia.com/gpu.count":                 "", // too far from every known key
	}
	for key, want := range cases {
		if got := c.suggest(key); got != want {
			t.Errorf("suggest(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	cases := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"kitten", "sitting", 10, 3},
		{"", "abc", 10, 3},
		{"same", "same", 10, 0},
		{"abcdef", "uvwxyz", 3, 3}, // stops at the limit
	}
	for _, c := range cases {
		if got := editDistance(c.a, c.b, c.limit); got != c.want {
			t.Errorf("editDistance(%q, %q, %d) = %d, want %d", c.a, c.b, c.limit, got, c.want)
		}
	}
}

// sectionsOf is input.workloads of inv, with the facts of its nodes.
func sectionsOf(inv *inventory.Inventory, pol cuda.Policy) []any {
	ws, _, _ := Sections(inv, nodefacts.All(inv.Nodes), pol, nil, nil)
	return ws
}

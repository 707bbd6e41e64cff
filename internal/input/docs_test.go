package input

import (
	"bufio"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/operator"
	"github.com/drvcheck/drvcheck/internal/placement"
)

// docTables reads docs/input.md: for each section heading, the keys its
// table's first column names (`a`, `b` names two).
func docTables(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open("../../docs/input.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	heading := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "#"):
			heading = strings.TrimSpace(strings.TrimLeft(line, "#"))
		case strings.HasPrefix(line, "| `"):
			cell := strings.Split(line, "|")[1]
			for _, k := range strings.Split(cell, ",") {
				out[heading] = append(out[heading], strings.Trim(strings.TrimSpace(k), "`"))
			}
		}
	}
	return out
}

// A document that fills every section: the lab, the scheduling fixtures
// (Gt on a non-integer, a typo key, a CUDA floor, anti-affinity), input.objects,
// and a live cluster's pods and budgets.
func fullDocuments(t *testing.T) (files, live map[string]any) {
	t.Helper()
	inv := inventoryOf(t, labDir, "../../testdata/scheduling/gt-version-id", "../../testdata/scheduling/typo-key", "../../testdata/scheduling/cuda-floor",
		"../../testdata/gpu-requests/lws-vllm.yaml", "../../testdata/gpu-requests/mig-single-a100.yaml")
	m, err := placement.New(inv)
	if err != nil {
		t.Fatal(err)
	}
	// A newer kernel of the lab's 22.04 line than its nodes run: their
	// missing tags say so (image.newest).
	cat := catalog.New()
	cat.Add("m.csv", []string{"550-5.15.0-200-generic-ubuntu22.04"})
	profile, err := operator.Build(operator.Flags{DriverVersion: "550", Precompiled: true}, operator.Objects{})
	if err != nil {
		t.Fatal(err)
	}
	// The platforms of the nodes' images, as the runner reads them from a
	// registry for nodes of another architecture (image.platforms).
	facts := nodefacts.All(inv.Nodes)
	facts.Each(inv.Nodes, func(_ *corev1.Node, f *nodefacts.Facts) {
		if f.GPU {
			f.Image.Platforms = []string{"amd64"}
		}
	})
	files = Build(inv, facts, cat, Options{Drain: m, Objects: []any{}, Operator: profile})
	// DRA is judged only where every GPU node's devices are known: the
	// lab's nodes say nothing of their GPUs, so its fleet is a document
	// of its own, its entries added to the others.
	dra := build(inventoryOf(t, "../../testdata/gpu-requests/dra-pod-on-a100-pool.yaml", "../../testdata/gpu-requests/dra-claim-h100.yaml"), catalog.New(), Options{})
	for _, key := range []string{"workloads", "claims"} {
		files[key] = append(files[key].([]any), dra[key].([]any)...)
	}
	// A rollout's window (gang.rollout, rollout_room) needs a ClusterPolicy
	// that rolls, with the nodes it manages: fleets of their own too.
	for _, fleet := range [][]string{{"gang-rounds.yaml"}, {"vllm-deployment.yaml", "clusterpolicy-rollout.yaml"}} {
		var paths []string
		for _, f := range fleet {
			paths = append(paths, "../../testdata/gpu-requests/"+f)
		}
		rinv := inventoryOf(t, paths...)
		rprofile, err := operator.Build(operator.Flags{}, operator.Objects{ClusterPolicies: rinv.ClusterPolicies})
		if err != nil {
			t.Fatal(err)
		}
		rollout := Build(rinv, nodefacts.All(rinv.Nodes), catalog.New(), Options{Operator: rprofile})
		files["workloads"] = append(files["workloads"].([]any), rollout["workloads"].([]any)...)
	}
	yes := true
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "gpu", Labels: map[string]string{"app": "a"},
		OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "rs", Controller: &yes}}}}
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "gpu"},
		Spec: policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}}}
	linv := &inventory.Inventory{Live: true, Pods: []*corev1.Pod{pod}, PDBs: []*policyv1.PodDisruptionBudget{pdb}}
	live = build(linv, catalog.New(), Options{})
	return files, live
}

// sections says where in the document each table of docs/input.md lives.
var sections = map[string]func(files, live map[string]any) []any{
	"Top level": func(f, l map[string]any) []any { return []any{f, l} },
	"`catalog`": func(f, _ map[string]any) []any { return []any{f["catalog"]} },
	"`nodes[].image`": func(f, _ map[string]any) []any {
		var out []any
		for _, n := range f["nodes"].([]any) {
			out = append(out, n.(map[string]any)["image"])
		}
		return out
	},
	"`operator`":           func(f, _ map[string]any) []any { return []any{f["operator"]} },
	"`operator.drivers[]`": func(f, _ map[string]any) []any { return f["operator"].(map[string]any)["drivers"].([]any) },
	"`nodes[]`":            func(f, _ map[string]any) []any { return f["nodes"].([]any) },
	"`workloads[]`":        func(f, _ map[string]any) []any { return f["workloads"].([]any) },
	"`claims[]`":           func(f, _ map[string]any) []any { return f["claims"].([]any) },
	"`placement`":          workloadPart("placement"),
	"`gt_lt[]`":            workloadList("gt_lt"),
	"`cuda`":               workloadPart("cuda"),
	"`anti_affinity`":      workloadPart("anti_affinity"),
	"`unknown_keys[]`":     workloadList("unknown_keys"),
	"`pdbs[]`":             func(f, _ map[string]any) []any { return f["pdbs"].([]any) },
	"`drain`":              func(f, _ map[string]any) []any { return slices.Collect(maps.Values(f["drain"].(map[string]any))) },
	"`gpu`":                workloadPart("gpu"),
	"`gpu_fit`":            workloadPart("gpu_fit"),
	"`gang`":               workloadPart("gang"),
	"`rollout_room` *(files, operator profile)*": workloadPart("rollout_room"),
	"`upgrade`":          func(f, _ map[string]any) []any { return []any{f["upgrade"]} },
	"`upgrade.scopes[]`": func(f, _ map[string]any) []any { return f["upgrade"].(map[string]any)["scopes"].([]any) },
	"`upgrade.nodes`": func(f, _ map[string]any) []any {
		return slices.Collect(maps.Values(f["upgrade"].(map[string]any)["nodes"].(map[string]any)))
	},
	"`cluster.pods[]`":    func(_, l map[string]any) []any { return l["cluster"].(map[string]any)["pods"].([]any) },
	"`cluster.budgets[]`": func(_, l map[string]any) []any { return l["cluster"].(map[string]any)["budgets"].([]any) },
}

func workloadPart(key string) func(f, _ map[string]any) []any {
	return func(f, _ map[string]any) []any {
		var out []any
		for _, w := range f["workloads"].([]any) {
			if part, ok := w.(map[string]any)[key]; ok { // gpu_fit and gang only where they apply
				out = append(out, part)
			}
		}
		return out
	}
}

func workloadList(key string) func(f, _ map[string]any) []any {
	return func(f, _ map[string]any) []any {
		var out []any
		for _, w := range f["workloads"].([]any) {
			out = append(out, w.(map[string]any)[key].([]any)...)
		}
		return out
	}
}

// TestDocsMatchTheDocument ties docs/input.md to what Build makes: every
// key a table names is in the document, and every key of the document is
// in its table. A field added on one side only fails here.
func TestDocsMatchTheDocument(t *testing.T) {
	tables := docTables(t)
	files, live := fullDocuments(t)
	for heading, where := range sections {
		documented, ok := tables[heading]
		if !ok {
			t.Errorf("docs/input.md has no table under %q", heading)
			continue
		}
		entries := where(files, live)
		if len(entries) == 0 {
			t.Errorf("%s: the test document has no entry to compare with", heading)
			continue
		}
		built := map[string]bool{}
		for _, e := range entries {
			for k := range e.(map[string]any) {
				built[k] = true
			}
		}
		for _, k := range documented {
			if !built[k] {
				t.Errorf("%s: docs/input.md documents %q, which the document does not have", heading, k)
			}
			delete(built, k)
		}
		for _, k := range slices.Sorted(maps.Keys(built)) {
			t.Errorf("%s: the document has %q, which docs/input.md does not document", heading, k)
		}
	}
}

package load

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const gitops = "../../testdata/gitops"

// Walking a repository builds each kustomization root (the overlays, not
// the base they share) and reads every built object back at its source
// file and line.
func TestWalkBuildsKustomizations(t *testing.T) {
	objs, err := Load(context.Background(), []string{filepath.Join(gitops, "apps")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs {
		got = append(got, o.Kind+" "+o.Namespace+"/"+o.Name+" "+filepath.Base(o.Source.Name))
	}
	slices.Sort(got)
	want := []string{
		"Deployment dev/dev-triton deployment.yaml", "Deployment prod/prod-triton deployment.yaml",
		"PodDisruptionBudget dev/dev-triton pdb.yaml", "PodDisruptionBudget prod/prod-triton pdb.yaml",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("objects %v, want %v", got, want)
	}
	for _, o := range objs {
		if o.Kind != "Deployment" {
			continue
		}
		if line := o.FieldLine([]any{"spec", "template", "spec", "nodeSelector"}); line != 14 {
			t.Errorf("%s: nodeSelector at line %d of %s, want 14", o.Name, line, o.Source.Name)
		}
		if o.Namespace == "prod" && o.Raw["spec"].(map[string]any)["replicas"] != int64(4) {
			t.Errorf("prod replicas %v: the patch was not applied", o.Raw["spec"])
		}
		if ann, _ := o.Raw["metadata"].(map[string]any)["annotations"].(map[string]any); ann[originAnnotation] != nil {
			t.Errorf("the origin annotation is left in %v", ann)
		}
	}
	// --no-render reads the files one by one, as before.
	if _, err := Load(context.Background(), []string{filepath.Join(gitops, "apps")}, Options{NoRender: true, Skip: func(string, string) {}}); err != nil {
		t.Errorf("NoRender: %v", err)
	}
}

func TestKustomizationErrors(t *testing.T) {
	dir := t.TempDir()
	mk := func(rel, content string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk(".git/HEAD", "ref: refs/heads/main\n") // one repository: cycle/a may use cycle/b
	mk("remote/kustomization.yaml", "resources:\n- https://github.com/example/base?ref=v1\n")
	mk("missing/kustomization.yaml", "resources:\n- nothere.yaml\n")
	mk("cycle/a/kustomization.yaml", "resources:\n- ../b\n")
	mk("cycle/b/kustomization.yaml", "resources:\n- ../a\n")
	for d, want := range map[string]string{
		"remote":  "remote/kustomization.yaml: https://github.com/example/base?ref=v1 is a remote base; drvcheck builds local kustomizations only",
		"missing": "missing/kustomization.yaml: kustomize build: ",
		"cycle/a": "cycle/a/kustomization.yaml: kustomize build: ",
	} {
		_, err := Load(context.Background(), []string{filepath.Join(dir, d)}, Options{})
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", d, err, want)
		}
	}
}

// A build's OpenAPI schema (a kustomization's openapi field) is that
// build's alone: with the renders in one child, one after another, the
// next build's strategic-merge patch still merges containers by name
// instead of replacing the list (kyaml keeps the schema in a global).
func TestKustomizeSchemaStaysWithItsBuild(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)) // one child takes every build
	dir := t.TempDir()
	schema := `{"definitions": {
 "io.k8s.api.apps.v1.Deployment": {"type": "object",
   "x-kubernetes-group-version-kind": [{"group": "apps", "kind": "Deployment", "version": "v1"}],
   "properties": {"spec": {"$ref": "#/definitions/x.Spec"}}},
 "x.Spec": {"type": "object", "properties": {"template": {"$ref": "#/definitions/x.Template"}}},
 "x.Template": {"type": "object", "properties": {"spec": {"$ref": "#/definitions/x.PodSpec"}}},
 "x.PodSpec": {"type": "object", "properties": {"containers": {"type": "array", "items": {"type": "object"}}}}}}`
	files := map[string]string{
		".git/HEAD":            "ref: refs/heads/main\n",
		"a/kustomization.yaml": "resources: [cm.yaml]\nopenapi:\n  path: schema.json\n",
		"a/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
		"a/schema.json":        schema,
		"b/kustomization.yaml": "resources: [dep.yaml]\npatches:\n- patch: |-\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata: {name: w}\n    spec:\n      template:\n        spec:\n          containers:\n          - name: c\n            image: cuda:12.4\n",
		"b/dep.yaml":           "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec:\n  template:\n    spec:\n      containers:\n      - name: c\n        image: cuda:12.2\n        resources: {limits: {nvidia.com/gpu: 8}}\n      - name: sidecar\n        image: busybox\n",
	}
	for name, text := range files {
		write(t, dir, name, text)
	}
	objs, err := Load(context.Background(), []string{dir}, optsFor(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if o.Kind != "Deployment" {
			continue
		}
		containers, _ := At(o.Raw, "spec", "template", "spec", "containers").([]any)
		if len(containers) != 2 || At(containers[0], "resources", "limits", "nvidia.com/gpu") == nil {
			t.Errorf("the Deployment of b, built after a's schema: containers %v", containers)
		}
		return
	}
	t.Fatal("no Deployment built")
}

// Kustomizations that use each other in a cycle are no one's base: the
// walk builds them, and the build's error names the cycle, instead of
// checking nothing and passing.
func TestKustomizationCycleIsBuilt(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		".git/HEAD":              "ref: refs/heads/main\n",
		"k/a/kustomization.yaml": "resources: [../b, dep.yaml]\n",
		"k/a/dep.yaml":           "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\n",
		"k/b/kustomization.yaml": "resources: [../a]\n",
	}
	for name, text := range files {
		write(t, dir, name, text)
	}
	objs, err := Load(context.Background(), []string{filepath.Join(dir, "k")}, optsFor(t, dir))
	if err == nil || !strings.Contains(err.Error(), "kustomization.yaml") {
		t.Errorf("a cycle of kustomizations: %d objects, error %v; want the build's error", len(objs), err)
	}
}

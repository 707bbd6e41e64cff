package load

import (
	"context"
	"os"
	"path/filepath"
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

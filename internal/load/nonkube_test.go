package load

import (
	"context"
	"strings"
	"testing"
)

// What a repository holds besides manifests is skipped, with what it is;
// a file that looks like Kubernetes objects and is broken is not.
func TestNotKubernetes(t *testing.T) {
	for name, c := range map[string]struct{ data, want string }{
		"chart":          {"apiVersion: v2\nname: gpu-inference\nversion: 0.1.0\n", "no kind"},
		"values":         {"replicaCount: 2\nimage:\n  repository: nvcr.io/nvidia/tritonserver\n", "no kind"},
		"workflow":       {"name: ci\non: [push]\njobs:\n  test: {runs-on: ubuntu-latest}\n", "no kind"},
		"playbook":       {"- hosts: gpu\n  tasks: []\n", "not a mapping"},
		"helm template":  {"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n  {{- with .Values.x }}\n  y: 1\n  {{- end }}\n", "a template"},
		"kustomization":  {"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [a.yaml]\n", "a kustomization"},
		"broken object":  {"apiVersion: apps/v1\nkind: Deployment\nspec: {}\n", ""},
		"no kind":        {"apiVersion: v1\nmetadata: {name: a}\n", ""},
		"no apiVersion":  {"metadata: {name: a}\nspec: {replicas: 1}\n", ""},
		"mixed":          {"apiVersion: v1\nkind: Pod\nspec: {}\n---\nreplicas: 2\n", ""},
		"syntax, no tpl": {"kind: Pod\nmetadata: [\n", ""},
		"empty":          {"---\n", ""},
	} {
		if got := NotKubernetes([]byte(c.data)); (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", name, got, c.want)
		}
	}
}

// Load skips such files and says so, unless Strict; stdin is never skipped.
func TestLoadSkipsWhatIsNotKubernetes(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "values.yaml", "replicas: 2\n")
	write(t, dir, "pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")
	var skipped []string
	objs, err := Load(context.Background(), []string{dir}, Options{Skip: func(path, why string) { skipped = append(skipped, path+": "+why) }})
	if err != nil || len(objs) != 1 || len(skipped) != 1 || !strings.HasSuffix(skipped[0], "values.yaml: no kind: not a Kubernetes object") {
		t.Fatalf("objs %d, skipped %v, err %v", len(objs), skipped, err)
	}
	if _, err := Load(context.Background(), []string{dir}, Options{Strict: true}); err == nil || !strings.Contains(err.Error(), "values.yaml:1: document has no kind") {
		t.Errorf("strict: %v", err)
	}
	if _, err := Load(context.Background(), []string{"-"}, Options{Stdin: strings.NewReader("replicas: 2\n")}); err == nil {
		t.Error("stdin without a Kubernetes object was skipped")
	}
}

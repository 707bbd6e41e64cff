package load

import (
	"context"
	"path/filepath"
	"testing"
)

// Walking a repository root skips hidden files (.drvcheck.yaml,
// .pre-commit-config.yaml) as it skips hidden folders; a hidden file named
// explicitly is still read.
func TestWalkSkipsHiddenFiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		".drvcheck.yaml":           "fail-on: warning\n",
		".pre-commit-config.yaml":  "repos: []\n",
		".github/workflows/ci.yml": "on: push\n",
		"k8s/node.yaml":            "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n",
		"k8s/.hidden.yaml":         "apiVersion: v1\nkind: Node\nmetadata: {name: b}\n",
	}
	for name, content := range files {
		write(t, dir, name, content)
	}
	objs, err := Load(context.Background(), []string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 || objs[0].Name != "a" {
		t.Fatalf("loaded %d objects: %+v", len(objs), objs)
	}
	objs, err = Load(context.Background(), []string{filepath.Join(dir, "k8s", ".hidden.yaml")}, Options{})
	if err != nil || len(objs) != 1 || objs[0].Name != "b" {
		t.Fatalf("explicit hidden file: %v %+v", err, objs)
	}
}

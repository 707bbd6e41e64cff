package load

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/drvcheck/drvcheck/internal/fleetgen"
)

// An Application's values: the values string, valuesObject over it, and
// parameters as --set takes them (the sandbox applies them over the
// values); a Flux HelmRelease from a Helm repository is not followed.
func TestGitOpsValues(t *testing.T) {
	helm := map[string]any{
		"values":       "replicaCount: 3\npdb: {minAvailable: 3}\n",
		"valuesObject": map[string]any{"replicaCount": int64(4)},
		"parameters":   []any{map[string]any{"name": "pdb.minAvailable", "value": "1"}},
	}
	vals := argoValues(helm)
	if vals["replicaCount"] != int64(4) || vals["pdb"].(map[string]any)["minAvailable"] != float64(3) {
		t.Errorf("values %v", vals)
	}
	if set := argoParameters(helm); len(set) != 1 || set[0] != "pdb.minAvailable=1" {
		t.Errorf("parameters %v", set)
	}
	hr := &Object{Kind: "HelmRelease", APIVersion: "helm.toolkit.fluxcd.io/v2", Source: &Source{Name: gitops + "/hr.yaml"},
		Raw: map[string]any{"spec": map[string]any{"chart": map[string]any{"spec": map[string]any{
			"chart": "gpu-operator", "sourceRef": map[string]any{"kind": "HelmRepository"}}}}}}
	if rels, notes := releasesOf(hr, testFS(t)); len(rels) != 0 || len(notes) != 1 {
		t.Errorf("HelmRepository chart: %v %v", rels, notes)
	}
}

// TestFollowManyApplications renders the chart of many Argo CD
// Applications at once, in the pool's children: each Application's
// objects carry its own release name, namespace and values, whatever
// order the renders finish in.
func TestFollowManyApplications(t *testing.T) {
	dir := t.TempDir()
	const apps = 40
	if err := fleetgen.WriteApps(dir, apps, 4); err != nil {
		t.Fatal(err)
	}
	objs, err := Load(context.Background(), []string{dir}, optsFor(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*Object{}
	for _, o := range objs {
		if o.Kind == "Deployment" {
			got[o.Namespace+"/"+o.Name] = o
		}
	}
	if len(got) != 2*apps { // templates t00 and t03
		t.Fatalf("%d Deployments, want %d", len(got), 2*apps)
	}
	for i := range apps {
		key := fmt.Sprintf("team-%02d/app-%05d-w0", i%20, i)
		o := got[key]
		if o == nil {
			t.Fatalf("no Deployment %s", key)
		}
		replicas := At(o.Raw, "spec", "replicas")
		cluster := At(o.Raw, "metadata", "labels", "cluster")
		if fmt.Sprint(replicas) != fmt.Sprint(1+i%3) || cluster != fmt.Sprintf("cluster-%04d", i/10) {
			t.Errorf("%s: replicas %v, cluster %v; the Application says %d and cluster-%04d", key, replicas, cluster, 1+i%3, i/10)
		}
	}
}

// A release that fails ends the renders still running: the run says which
// one failed at once, not after every other render's deadline.
func TestFollowFailureEndsTheOtherRenders(t *testing.T) {
	dir := t.TempDir()
	app := func(name, chart, values string) string {
		return "---\napiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: " + name + ", namespace: argocd}\n" +
			"spec:\n  source:\n    repoURL: https://git.example.com/r.git\n    path: charts/" + chart + "\n    helm:\n      valuesObject: {" + values + "}\n" +
			"  destination: {namespace: default}\n"
	}
	apps := app("a00", "f", "boom: true")
	for i := range 4 {
		apps += app(fmt.Sprintf("a%02d", i+1), "loop", "loop: true")
	}
	files := map[string]string{
		".git/HEAD":                     "ref: refs/heads/main\n",
		"apps.yaml":                     apps,
		"charts/f/Chart.yaml":           "apiVersion: v2\nname: f\nversion: 1.0.0\n",
		"charts/f/templates/cm.yaml":    "{{ if .Values.boom }}{{ fail \"fast failure\" }}{{ end }}\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: f}\n",
		"charts/loop/Chart.yaml":        "apiVersion: v2\nname: loop\nversion: 1.0.0\n",
		"charts/loop/templates/cm.yaml": "{{ if .Values.loop }}{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}{{ end }}\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: loop}\n",
	}
	for name, text := range files {
		write(t, dir, name, text)
	}
	opt := optsFor(t, dir)
	opt.RenderTimeout = time.Minute
	start := time.Now()
	_, err := Load(context.Background(), []string{dir}, opt)
	if err == nil || !strings.Contains(err.Error(), "Application/argocd/a00") || !strings.Contains(err.Error(), "fast failure") {
		t.Errorf("error %v, want a00's fast failure", err)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("took %s: the looping renders ran on after a00 failed", took)
	}
}

package load

import (
	"context"
	"fmt"
	"testing"

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

package load

import "testing"

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

package load

import "testing"

// An Application's values: the values string, valuesObject over it, then
// parameters; a Flux HelmRelease from a Helm repository is not followed.
func TestGitOpsValues(t *testing.T) {
	vals := argoValues(map[string]any{
		"values":       "replicaCount: 3\npdb: {minAvailable: 3}\n",
		"valuesObject": map[string]any{"replicaCount": int64(4)},
		"parameters":   []any{map[string]any{"name": "pdb.minAvailable", "value": "1"}},
	})
	if vals["replicaCount"] != int64(4) || vals["pdb"].(map[string]any)["minAvailable"] != int64(1) {
		t.Errorf("values %v", vals)
	}
	hr := &Object{Kind: "HelmRelease", APIVersion: "helm.toolkit.fluxcd.io/v2", Source: &Source{Name: gitops + "/hr.yaml"},
		Raw: map[string]any{"spec": map[string]any{"chart": map[string]any{"spec": map[string]any{
			"chart": "gpu-operator", "sourceRef": map[string]any{"kind": "HelmRepository"}}}}}}
	if rels, notes := releasesOf(hr); len(rels) != 0 || len(notes) != 1 {
		t.Errorf("HelmRepository chart: %v %v", rels, notes)
	}
}

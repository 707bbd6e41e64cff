package operator

import "github.com/drvcheck/drvcheck/internal/object"

// One GPU stack per cluster: the device plugin's, which a ClusterPolicy
// configures, or DRA's, which a GPUCluster does. At v26.7.0 the two may
// not co-exist: the ClusterPolicy controller sets its ClusterPolicy
// NotReady and reconciles nothing while a GPUCluster exists
// (controllers/clusterpolicy_controller.go:134-148), and the GPUCluster
// controller does not enable DRA while a ClusterPolicy exists
// (controllers/gpucluster_controller.go:165-172). The chart makes a
// ClusterPolicy unless clusterPolicy.deployCR is false, and a GPUCluster
// named gpu-cluster when gpuCluster.deployCR is true
// (deployments/gpu-operator/values.yaml:563-576, templates/gpucluster.yaml:1,
// templates/_helpers.tpl:93-95); "it is an invalid configuration for both
// CRs to exist".

// Declared is one of the operator's custom resources and where the inputs
// declare it: the object itself, or the values or GitOps object whose
// chart renders it.
type Declared struct {
	Name  object.Ref // e.g. GPUCluster/gpu-cluster
	Where object.Ref // where a finding points
}

// ItSelf declares ref by its own object.
func ItSelf(ref object.Ref) Declared { return Declared{Name: ref, Where: ref} }

// The chart's objects, as its templates name them.
var chartGPUCluster = object.Ref{Kind: "GPUCluster", Name: "gpu-cluster"}

// templateTrue is a value as a template's {{ if }} reads it
// (text/template's truth): false, 0, nothing and an empty string, map or
// list are false; anything else, the string "false" too, is true.
func templateTrue(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case float64:
		return x != 0
	case map[string]any:
		return len(x) > 0
	case []any:
		return len(x) > 0
	}
	return true
}

// chartStacks are the ClusterPolicy and the GPUCluster the chart's values
// v make, declared by src.
func chartStacks(v values, src object.Ref) (*Declared, []Declared) {
	var cp *Declared
	if d := v.ClusterPolicy.DeployCR; d == nil || templateTrue(d) { // the chart's default is true
		cp = &Declared{Name: chartClusterPolicy, Where: src}
	}
	if templateTrue(v.GPUCluster.DeployCR) {
		return cp, []Declared{{Name: chartGPUCluster, Where: src}}
	}
	return cp, nil
}

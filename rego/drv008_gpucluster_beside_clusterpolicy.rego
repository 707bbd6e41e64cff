# DRV008: a GPUCluster (the DRA stack) beside the ClusterPolicy (the device
# plugin's). At v26.7.0 one stack per cluster: the ClusterPolicy
# controller sets the ClusterPolicy NotReady and returns before it
# reconciles anything while a GPUCluster exists
# (controllers/clusterpolicy_controller.go:134-148), and the GPUCluster
# controller leaves DRA off while a ClusterPolicy exists
# (controllers/gpucluster_controller.go:165-172). The chart's values say
# "it is an invalid configuration for both CRs to exist"
# (deployments/gpu-operator/values.yaml:568-576).
package drvcheck.rules.drv008

import data.drvcheck.lib

meta := {
	"id": "DRV008",
	"title": "gpucluster-beside-clusterpolicy",
	"severity": "error",
	"help": "The GPU Operator runs one GPU stack per cluster: the device plugin's, configured by a ClusterPolicy, or Dynamic Resource Allocation's, configured by a GPUCluster. While both exist the ClusterPolicy is NotReady and nothing it configures is reconciled (no new node gets a driver, no change rolls out), and the GPUCluster does not enable DRA. With the chart, set gpuCluster.deployCR=true together with clusterPolicy.deployCR=false; otherwise delete one of the two objects.",
}

findings contains f if {
	cp := input.operator.cluster_policy
	cp != null
	some g in object.get(input.operator, "gpu_clusters", [])
	f := lib.finding(meta, g.object, {
		"message": sprintf("%s and %s cannot co-exist: the operator sets the ClusterPolicy NotReady and reconciles nothing of it (no new node gets a driver, no change rolls out), and the GPUCluster does not enable DRA", [g.name, cp.name]),
		"fix": fix(g, cp),
	})
}

# fix names the chart's switch when the chart declares the pair.
fix(g, cp) := "set clusterPolicy.deployCR: false beside gpuCluster.deployCR: true, or gpuCluster.deployCR: false" if {
	g.object == cp.object
} else := sprintf("delete %s or %s: the operator runs one of the two stacks", [g.name, cp.name])

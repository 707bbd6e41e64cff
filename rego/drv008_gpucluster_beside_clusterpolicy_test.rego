package drvcheck.rules.drv008_test

import data.drvcheck.rules.drv008

ref(kind, name) := {"kind": kind, "namespace": "", "name": name}

# NVIDIA's samples: config/samples/v1_clusterpolicy.yaml (gpu-cluster-policy)
# and config/samples/nvidia_v1alpha1_gpucluster.yaml (gpu-cluster), both
# applied.
objects := {"cluster_policy": {"name": "ClusterPolicy/gpu-cluster-policy", "object": ref("ClusterPolicy", "gpu-cluster-policy")}, "gpu_clusters": [{"name": "GPUCluster/gpu-cluster", "object": ref("GPUCluster", "gpu-cluster")}]}

# The chart's values with gpuCluster.deployCR=true and clusterPolicy.deployCR
# left at its default, true (values.yaml:563-576): both declared by the
# values' stand-in.
chart := {"cluster_policy": {"name": "ClusterPolicy/cluster-policy", "object": ref("ClusterPolicy", "cluster-policy")}, "gpu_clusters": [{"name": "GPUCluster/gpu-cluster", "object": ref("ClusterPolicy", "cluster-policy")}]}

findings(op) := fs if {
	fs := drv008.findings with input as {"operator": op}
}

test_both_objects if {
	fs := findings(objects)
	count(fs) == 1
	some f in fs
	f.message == "GPUCluster/gpu-cluster and ClusterPolicy/gpu-cluster-policy cannot co-exist: the operator sets the ClusterPolicy NotReady and reconciles nothing of it (no new node gets a driver, no change rolls out), and the GPUCluster does not enable DRA"
	f.fix == "delete GPUCluster/gpu-cluster or ClusterPolicy/gpu-cluster-policy: the operator runs one of the two stacks"
}

test_the_charts_switches if {
	some f in findings(chart)
	f.fix == "set clusterPolicy.deployCR: false beside gpuCluster.deployCR: true, or gpuCluster.deployCR: false"
}

test_one_stack if {
	count(findings(object.union(objects, {"gpu_clusters": []}))) == 0
	count(findings(object.union(objects, {"cluster_policy": null}))) == 0
	count(findings({"profile": false})) == 0
}

package drvcheck.rules.drv050_test

import data.drvcheck.rules.drv050

# Three clusters as three per-cluster results give them (report merge):
# releases from the chart's values at v26.3.1 and v26.7.0, drivers from
# their defaults (580.126.20 and 580.178.04, gpu-operator values.yaml at
# each tag).
cluster(name, release, branches, stacks) := {"name": name, "operator_version": release, "driver_branches": branches, "driver_versions": {}, "stacks": stacks, "gpu_nodes": 1}

findings(clusters) := fs if {
	fs := drv050.findings with input as {"clusters": clusters}
}

test_releases_and_branches_differ if {
	fs := findings([
		cluster("eu-1", "v26.7.0", ["580"], ["ClusterPolicy"]),
		cluster("us-1", "v26.3.1", ["580"], ["ClusterPolicy"]),
		cluster("ap-1", "v26.7.0", ["570"], ["ClusterPolicy"]),
	])
	count(fs) == 2
	some f in fs
	f.message == "the fleet's clusters run 2 GPU Operator releases: v26.3.1 (us-1); v26.7.0 (ap-1, eu-1)"
	f.object == {"kind": "Fleet", "namespace": "", "name": "fleet"}
	f.severity == "warning"
	some g in fs
	g.message == "the fleet's clusters run 2 driver branches: 570 (ap-1); 580 (eu-1, us-1)"
}

test_dra_beside_device_plugin if {
	fs := findings([cluster("a", "v26.7.0", ["580"], ["ClusterPolicy"]), cluster("b", "v26.7.0", ["580"], ["GPUCluster"])])
	count(fs) == 1
	some f in fs
	f.message == "the fleet's clusters run 2 operator stacks: ClusterPolicy (a); GPUCluster (b)"
}

test_one_pin if {
	count(findings([cluster("a", "v26.7.0", ["580"], ["ClusterPolicy"]), cluster("b", "v26.7.0", ["580"], ["ClusterPolicy"])])) == 0
}

# A cluster that does not say is not judged: no release named, no labels.
test_unknown_is_not_skew if {
	count(findings([cluster("a", "", [], []), cluster("b", "v26.7.0", ["580"], ["ClusterPolicy"])])) == 0
}

# One cluster's run has no clusters.
test_single_run if {
	count(drv050.findings) == 0 with input as {"nodes": []}
}

# --group-by env: staging may run the next release; within each
# environment the clusters must agree. prod's two clusters differ in
# their branch, staging's one cluster is alone.
grouped(name, group, branch) := object.union(cluster(name, "v26.7.0", [branch], ["ClusterPolicy"]), {"group": group})

test_grouped_fleets_are_judged_apart if {
	fs := findings([
		grouped("eu-1", "env=prod", "580"),
		grouped("us-1", "env=prod", "570"),
		object.union(cluster("stg-1", "v26.10.0", ["590"], ["GPUCluster"]), {"group": "env=staging"}),
	])
	count(fs) == 1
	some f in fs
	f.message == "the clusters of fleet env=prod run 2 driver branches: 570 (us-1); 580 (eu-1)"
	f.object == {"kind": "Fleet", "namespace": "", "name": "env=prod"}
}

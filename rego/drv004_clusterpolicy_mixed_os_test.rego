package drvcheck.rules.drv004_test

import data.drvcheck.rules.drv004

op(mode, tags) := {"operator": {
	"mode": mode, "os_tags": tags,
	"drivers": [{"object": {"kind": "ClusterPolicy", "namespace": "", "name": "cluster-policy"}, "owner": "ClusterPolicy/cluster-policy"}],
}}

test_two_os_under_a_clusterpolicy if {
	fs := drv004.findings with input as op("clusterpolicy", ["rhel9", "ubuntu22.04"])
	count(fs) == 1
	some f in fs
	f.rule == "DRV004"
	f.object.name == "cluster-policy"
	contains(f.message, "they run rhel9, ubuntu22.04")
	contains(f.fix, "NVIDIADriver")
}

test_one_os_is_fine if {
	count(drv004.findings) == 0 with input as op("clusterpolicy", ["ubuntu22.04"])
}

test_nvidiadrivers_pool_by_os if {
	count(drv004.findings) == 0 with input as op("nvidiadriver", ["rhel9", "ubuntu22.04"])
}

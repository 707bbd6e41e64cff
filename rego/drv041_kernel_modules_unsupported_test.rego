package drvcheck.rules.drv041_test

import data.drvcheck.rules.drv040_test
import data.drvcheck.rules.drv041

run(labels, kind) := {f.message | some f in fs} if {
	fs := drv041.findings with input as {
		"nodes": [drv040_test.node("n", labels, "580.126.20")],
		"operator": {"operator_version": "v26.7.0", "drivers": [{"owner": "ClusterPolicy/cluster-policy", "object": {"kind": "ClusterPolicy", "namespace": "", "name": "cluster-policy"}, "kernel_module_type": kind, "version": "580.126.20"}]},
	}
}

gh200 := {"nvidia.com/gpu.product": "NVIDIA-GH200-480GB", "nvidia.com/gpu.compute.major": "9", "nvidia.com/gpu.compute.minor": "0"}

test_blackwell_under_proprietary if {
	run(drv040_test.b300, "proprietary") == {"n has NVIDIA-B300-SXM6-AC (Blackwell), and ClusterPolicy/cluster-policy installs the proprietary kernel modules: Blackwell is driven only by the open modules"}
	run(drv040_test.b300, "open") == set()
	run(drv040_test.b300, "auto") == set()
	run(drv040_test.b300, "") == set() # the CRD's default, auto
}

test_gh200_under_proprietary if {
	run(gh200, "proprietary") == {"n has NVIDIA-GH200-480GB, and ClusterPolicy/cluster-policy installs the proprietary kernel modules: GH200 needs the open modules"}
}

test_pascal_under_open if {
	run(drv040_test.titan, "open") == {"n has NVIDIA-TITAN-Xp (Pascal), and ClusterPolicy/cluster-policy installs the open kernel modules: the open modules need a GPU with GSP (Turing or later), and Pascal has none"}
	run(drv040_test.titan, "proprietary") == set()
	run(drv040_test.h100, "proprietary") == set()
}

test_fix_names_the_module_type if {
	some f in drv041.findings with input as {
		"nodes": [drv040_test.node("n", drv040_test.b300, "580")],
		"operator": {"drivers": [{"owner": "ClusterPolicy/cluster-policy", "kernel_module_type": "proprietary"}]},
	}
	f.fix == "set kernelModuleType to open (or auto) in ClusterPolicy/cluster-policy"
}

# The rule judges each kind of GPU once (lib.gpu_kind) and every node of
# it by that: a GH200 and an H100 share their compute capability (9.0)
# but not their product, and only the GH200s need the open modules.
test_nodes_judged_by_their_own_kind if {
	nodes := [drv040_test.node(name, labels, "580.126.20") |
		some i in numbers.range(1, 6)
		labels := [gh200, drv040_test.h100][i % 2]
		name := sprintf("n%d", [i])
	]
	fs := drv041.findings with input as {
		"nodes": nodes,
		"operator": {"operator_version": "v26.7.0", "drivers": [{"owner": "ClusterPolicy/cluster-policy", "kernel_module_type": "proprietary"}]},
	}
	{f.node | some f in fs} == {"n2", "n4", "n6"}
}

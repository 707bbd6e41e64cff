package drvcheck.rules.drv023_test

import data.drvcheck.rules.drv023

node(name) := {"name": name, "gpu": true, "object": {"kind": "Node", "namespace": "", "name": name}}

drain(force, emptydir) := {"needs_force": [{"pod": p} | some p in force], "needs_delete_emptydir": [{"pod": p} | some p in emptydir]}

test_bare_pod_needs_force if {
	fs := drv023.findings with input as {
		"nodes": [node("lab-node-0"), node("lab-node-1")],
		"drain": {"lab-node-0": drain(["gpu-drv/cuda12-job"], []), "lab-node-1": drain([], [])},
	}
	count(fs) == 1
	some f in fs
	f.node == "lab-node-0"
	f.severity == "warning"
	f.message == "draining lab-node-0 needs --force for gpu-drv/cuda12-job (no controller: deleted for good)"
}

test_both_flags if {
	some f in drv023.findings with input as {
		"nodes": [node("n")],
		"drain": {"n": drain(["default/a"], ["default/a", "default/b"])},
	}
	f.message == "draining n needs --force for default/a (no controller: deleted for good), and --delete-emptydir-data for default/a, default/b (emptyDir data is lost)"
}

test_non_gpu_node_is_not_checked if {
	n := object.union(node("cpu"), {"gpu": false})
	count(drv023.findings) == 0 with input as {"nodes": [n], "drain": {"cpu": drain(["default/a"], [])}}
}

package drvcheck.rules.drv027_test

import data.drvcheck.rules.drv027

workload(name, daemonset, gpu) := {
	"object": {"kind": "DaemonSet", "namespace": "mon", "name": name},
	"owned": false, "daemonset": daemonset,
	"gpu": object.union({"requests": false, "operand": false, "gpu_nodes": 3, "hidden": [
		{"how": "container probe sets NVIDIA_VISIBLE_DEVICES=all", "field": "/spec/template/spec/containers/0/env/0"},
	]}, gpu),
}

test_daemonset_holds_the_driver_even_without_a_profile if {
	fs := drv027.findings with input as {"workloads": [workload("probe", true, {})]}
	count(fs) == 1
	some f in fs
	f.severity == "warning"
	f.field == "/spec/template/spec/containers/0/env/0"
	f.message == "it reaches the GPU without requesting it (container probe sets NVIDIA_VISIBLE_DEVICES=all) and may run on 3 GPU node(s): a drain leaves DaemonSet pods, so it keeps the old driver in use and the node's upgrade stalls in pod-restart-required"
}

test_a_deployment_only_with_the_operator if {
	count(drv027.findings) == 0 with input as {"workloads": [workload("probe", false, {})]}
	fs := drv027.findings with input as {"upgrade": {"operator": true}, "workloads": [workload("probe", false, {})]}
	count(fs) == 1
}

test_requests_operands_and_cpu_nodes_are_left_out if {
	ws := [
		workload("asks", true, {"requests": true}),
		workload("operand", true, {"operand": true}),
		workload("cpu-only", true, {"gpu_nodes": 0}),
		workload("plain", true, {"hidden": []}),
	]
	count(drv027.findings) == 0 with input as {"upgrade": {"operator": true}, "workloads": ws}
}

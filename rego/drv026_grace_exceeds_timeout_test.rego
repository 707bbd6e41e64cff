package drvcheck.rules.drv026_test

import data.drvcheck.rules.drv026

scope(name, timeout, auto) := {"name": name, "policy": {
	"auto_upgrade": auto, "pod_deletion": {"timeout_seconds": timeout},
	"drain": {"enabled": false},
}}

workload(name, requests, grace) := {
	"object": {"kind": "Deployment", "namespace": "ml", "name": name},
	"owned": false,
	"gpu": {"requests": requests, "grace_seconds": grace, "grace_field": "/spec/template/spec/terminationGracePeriodSeconds", "gpu_nodes": 2},
}

doc(scopes, workloads) := {"upgrade": {"operator": true, "scopes": scopes, "nodes": {}}, "workloads": workloads}

test_grace_at_or_over_the_timeout if {
	fs := drv026.findings with input as doc([scope("every managed node", 300, true)], [
		workload("trainer", true, 300),
		workload("server", true, 299),
		workload("cpu", false, 900),
	])
	count(fs) == 1
	some f in fs
	f.object.name == "trainer"
	f.severity == "warning"
	f.field == "/spec/template/spec/terminationGracePeriodSeconds"
	f.message == "its pods may take 300s to stop (terminationGracePeriodSeconds), and the GPU Operator gives up deleting GPU pods after 300s (podDeletion.timeoutSeconds of every managed node): the node then goes to upgrade-failed"
}

test_the_shortest_timeout_is_named_once if {
	fs := drv026.findings with input as doc([scope("NVIDIADriver/a", 600, true), scope("NVIDIADriver/b", 120, true)], [workload("trainer", true, 900)])
	count(fs) == 1
	some f in fs
	contains(f.message, "after 120s (podDeletion.timeoutSeconds of NVIDIADriver/b)")
}

test_no_timeout_or_no_rollout_no_finding if {
	count(drv026.findings) == 0 with input as doc([scope("s", 0, true), scope("t", 30, false)], [workload("trainer", true, 900)])
	count(drv026.findings) == 0 with input as {"upgrade": {"operator": false}, "workloads": [workload("trainer", true, 900)]}
}

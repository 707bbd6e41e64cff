package drvcheck.rules.drv010_test

import data.drvcheck.rules.drv010

workload(name, placement) := {
	"object": {"kind": "Pod", "namespace": "gpu-drv", "name": name},
	"owned": false, "daemonset": false, "replicas": 1,
	"placement": placement,
}

nowhere := {
	"total": 4, "eligible": 0, "matching": 0,
	"reasons": {"node(s) didn't match Pod's node affinity/selector": 4},
	"message": "0/4 nodes match: 4 node(s) didn't match Pod's node affinity/selector",
	"field": "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution",
}

somewhere := object.union(nowhere, {"eligible": 1, "matching": 1, "message": "1/4 nodes match: 3 node(s) didn't match Pod's node affinity/selector"})

test_affinity_matching_no_node_is_a_finding if {
	fs := drv010.findings with input as {"workloads": [workload("cuda13-job", nowhere), workload("cuda12-job", somewhere)]}
	count(fs) == 1
	some f in fs
	f.rule == "DRV010"
	f.severity == "error"
	f.title == "unschedulable-affinity"
	f.object.name == "cuda13-job"
	f.message == "0/4 nodes match: 4 node(s) didn't match Pod's node affinity/selector"
	f.field == nowhere.field
}

# Matching nodes that are all cordoned or tainted are not this rule's case.
test_matching_but_tainted_is_not_a_finding if {
	tainted := object.union(nowhere, {"matching": 2, "message": "0/4 nodes match: 2 node(s) had untolerated taint(s), 2 node(s) didn't match Pod's node affinity/selector"})
	count(drv010.findings) == 0 with input as {"workloads": [workload("w", tainted)]}
}

test_no_known_node_no_finding if {
	empty := object.union(nowhere, {"total": 0, "message": "0/0 nodes match"})
	count(drv010.findings) == 0 with input as {"workloads": [workload("w", empty)]}
}

test_daemonset_and_owned_are_skipped if {
	ds := object.union(workload("ds", nowhere), {"daemonset": true})
	owned := object.union(workload("rs", nowhere), {"owned": true})
	count(drv010.findings) == 0 with input as {"workloads": [ds, owned]}
}

package drvcheck.rules.drv011_test

import data.drvcheck.rules.drv011

version_id := "feature.node.kubernetes.io/system-os_release.VERSION_ID"

workload(gt_lt) := {
	"object": {"kind": "Pod", "namespace": "gpu-drv", "name": "os-gt"},
	"owned": false,
	"gt_lt": gt_lt,
}

field := ["spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms", 0, "matchExpressions", 0]

test_node_value_not_an_integer if {
	fs := drv011.findings with input as {"workloads": [workload([{
		"key": version_id, "operator": "Gt", "values": ["20"], "from": "required",
		"node": "lab-node-0", "field": field,
		"reason": sprintf("%s=22.04 on lab-node-0 is not an integer (and 3 more node(s))", [version_id]),
	}])]}
	count(fs) == 1
	some f in fs
	f.rule == "DRV011"
	f.severity == "error"
	f.node == "lab-node-0"
	f.field == field
	contains(f.message, "VERSION_ID=22.04 on lab-node-0 is not an integer")
	startswith(f.message, sprintf("Gt 20 on %s can never match: ", [version_id]))
}

test_requirement_value_not_an_integer if {
	fs := drv011.findings with input as {"workloads": [workload([{
		"key": "feature.node.kubernetes.io/kernel-version.full", "operator": "Lt", "values": ["6.8"],
		"from": "required", "node": "", "field": field, "reason": "value \"6.8\" is not an integer",
	}])]}
	count(fs) == 1
	some f in fs
	not f.node
	f.message == "Lt 6.8 on feature.node.kubernetes.io/kernel-version.full can never match: value \"6.8\" is not an integer"
}

test_no_value if {
	fs := drv011.findings with input as {"workloads": [workload([{
		"key": "k", "operator": "Gt", "values": [], "from": "preferred", "node": "", "field": field,
		"reason": "Gt needs exactly one value, has 0",
	}])]}
	some f in fs
	f.message == "Gt (no value) on k can never match: Gt needs exactly one value, has 0"
}

test_nothing_wrong_no_finding if {
	count(drv011.findings) == 0 with input as {"workloads": [workload([])]}
}

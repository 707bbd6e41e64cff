package drvcheck.rules.drv014_test

import data.drvcheck.rules.drv014

key_field := ["spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms", 0, "matchExpressions", 0, "key"]

workload(keys) := {
	"object": {"kind": "Pod", "namespace": "gpu-drv", "name": "typo"},
	"owned": false,
	"placement": {"total": 4},
	"unknown_keys": keys,
}

unknown(key, op, suggestion) := {"key": key, "operator": op, "from": "required", "suggestion": suggestion, "field": key_field}

test_typo_with_suggestion if {
	fs := drv014.findings with input as {"workloads": [workload([unknown("nvidia.com/gpu.presnt", "In", "nvidia.com/gpu.present")])]}
	count(fs) == 1
	some f in fs
	f.rule == "DRV014"
	f.severity == "warning"
	f.title == "unknown-label-key"
	f.field == key_field
	f.message == "no known node carries label nvidia.com/gpu.presnt (required node affinity); did you mean nvidia.com/gpu.present?"
}

test_unknown_without_suggestion if {
	fs := drv014.findings with input as {"workloads": [workload([object.union(unknown("example.com/pool", "Exists", ""), {"from": "nodeSelector"})])]}
	some f in fs
	f.message == "no known node carries label example.com/pool (nodeSelector)"
}

test_negative_operator_without_suggestion_is_intent if {
	count(drv014.findings) == 0 with input as {"workloads": [workload([
		unknown("node-role.kubernetes.io/control-plane", "DoesNotExist", ""),
		unknown("example.com/spot", "NotIn", ""),
	])]}
}

test_negative_operator_with_suggestion_is_reported if {
	fs := drv014.findings with input as {"workloads": [workload([unknown("nvidia.com/gpu.prsent", "DoesNotExist", "nvidia.com/gpu.present")])]}
	count(fs) == 1
}

test_no_known_node_no_finding if {
	w := object.union(workload([unknown("k", "In", "")]), {"placement": {"total": 0}})
	count(drv014.findings) == 0 with input as {"workloads": [w]}
}

package drvcheck.rules.drv002_test

import data.drvcheck.rules.drv002

node(problems) := {
	"name": "n", "gpu": true, "tag": "",
	"object": {"kind": "Node", "namespace": "", "name": "n"},
	"problems": problems,
}

test_missing_and_empty_labels_are_named if {
	fs := drv002.findings with input as {"nodes": [node([
		{"label": "feature.node.kubernetes.io/kernel-version.full", "reason": "missing", "field": "/metadata/labels"},
		{"label": "feature.node.kubernetes.io/system-os_release.ID", "reason": "empty", "field": "/metadata/labels/feature.node.kubernetes.io~1system-os_release.ID"},
	])]}
	count(fs) == 1
	some f in fs
	f.rule == "DRV002"
	f.node == "n"
	contains(f.message, "feature.node.kubernetes.io/kernel-version.full is missing")
	contains(f.message, "feature.node.kubernetes.io/system-os_release.ID is empty")
	f.field == "/metadata/labels"
	f.image == "unknown"
}

test_complete_node_has_no_finding if {
	count(drv002.findings) == 0 with input as {"nodes": [node([])]}
}

test_non_gpu_node_is_ignored if {
	n := object.union(node([{"label": "x", "reason": "missing", "field": ""}]), {"gpu": false})
	count(drv002.findings) == 0 with input as {"nodes": [n]}
}

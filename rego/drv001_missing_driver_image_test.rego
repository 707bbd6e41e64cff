package drvcheck.rules.drv001_test

import data.drvcheck.rules.drv001

node(name, tag, present) := {
	"name": name, "gpu": true, "tag": tag,
	"object": {"kind": "Node", "namespace": "", "name": name},
	"image": {"checked": true, "present": present, "sources": []},
}

catalog := {"configured": true, "description": "support-matrix.csv"}

test_missing_tag_is_a_finding if {
	fs := drv001.findings with input as {"catalog": catalog, "nodes": [
		node("a", "550-6.8.0-52-generic-ubuntu24.04", false),
		node("b", "550-6.8.0-45-generic-ubuntu24.04", true),
	]}
	count(fs) == 1
	some f in fs
	f.rule == "DRV001"
	f.severity == "error"
	f.node == "a"
	f.tag == "550-6.8.0-52-generic-ubuntu24.04"
	f.message == "no precompiled driver image 550-6.8.0-52-generic-ubuntu24.04 in support-matrix.csv"
}

test_no_source_no_finding if {
	count(drv001.findings) == 0 with input as {
		"catalog": {"configured": false, "description": ""},
		"nodes": [node("a", "550-x-ubuntu24.04", false)],
	}
}

test_non_gpu_node_is_not_audited if {
	n := object.union(node("a", "550-x-ubuntu24.04", false), {"gpu": false})
	count(drv001.findings) == 0 with input as {"catalog": catalog, "nodes": [n]}
}

test_node_without_tag_is_left_to_drv002 if {
	count(drv001.findings) == 0 with input as {"catalog": catalog, "nodes": [node("a", "", false)]}
}

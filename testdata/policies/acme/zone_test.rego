package acme_test

import data.drvcheck.rules.acme002

test_node_without_zone_is_reported if {
	fs := acme002.findings with input.nodes as [
		{"name": "a", "gpu": true, "labels": {}, "object": {"kind": "Node", "namespace": "", "name": "a"}},
		{"name": "b", "gpu": true, "labels": {"topology.kubernetes.io/zone": "z1"}, "object": {"kind": "Node", "namespace": "", "name": "b"}},
	]
	count(fs) == 1
	some f in fs
	f.node == "a"
}

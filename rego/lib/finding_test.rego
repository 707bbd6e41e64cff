package drvcheck.lib_test

import data.drvcheck.lib

test_finding_shape if {
	f := lib.finding(
		{"id": "X001", "title": "t", "severity": "warning"},
		{"kind": "Node", "namespace": "", "name": "n"},
		{"message": "m", "node": "n"},
	)
	f == {
		"rule": "X001", "title": "t", "severity": "warning",
		"object": {"kind": "Node", "namespace": "", "name": "n"},
		"message": "m", "node": "n",
	}
}

test_gpu_nodes_only_gpu if {
	names := {n.name | some n in lib.gpu_nodes} with input as {"nodes": [
		{"name": "a", "gpu": true},
		{"name": "b", "gpu": false},
	]}
	names == {"a"}
}

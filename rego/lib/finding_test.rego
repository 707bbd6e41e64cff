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

test_with_node if {
	lib.with_node({"message": "m"}, "n") == {"message": "m", "node": "n"}
	lib.with_node({"message": "m"}, "") == {"message": "m"}
}

package drvcheck.rules.drv005_test

import data.drvcheck.rules.drv005

node(why) := {
	"name": "n", "gpu": true, "object": {"kind": "Node", "namespace": "", "name": "n"},
	"image": {"owner_error": why, "managed": false},
}

test_two_owners if {
	fs := drv005.findings with input as {"nodes": [node("NVIDIADrivers a, b all select it; the operator assigns no owner")]}
	count(fs) == 1
	some f in fs
	f.rule == "DRV005"
	f.node == "n"
	contains(f.message, "GPU node n gets no driver: NVIDIADrivers a, b all select it")
}

test_owned_node_is_fine if {
	count(drv005.findings) == 0 with input as {"nodes": [node("")]}
}

test_lab_has_no_owner_errors if {
	count(drv005.findings) == 0 with input as data.drvcheck.testdata.lab
}

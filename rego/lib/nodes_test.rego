package drvcheck.lib_test

import data.drvcheck.lib

test_gpu_nodes_only_gpu if {
	names := {n.name | some n in lib.gpu_nodes} with input as {"nodes": [
		{"name": "a", "gpu": true},
		{"name": "b", "gpu": false},
	]}
	names == {"a"}
}

test_the_lab_has_four_gpu_nodes if {
	count(lib.gpu_nodes) == 4 with input as data.drvcheck.testdata.lab
}

states := {"nodes": [
	{"name": "d", "gpu": true, "upgrade_state": "drain-required"},
	{"name": "r", "gpu": true, "upgrade_state": "pod-restart-required"},
	{"name": "f", "gpu": true, "upgrade_state": "upgrade-failed"},
	{"name": "x", "gpu": true, "upgrade_state": ""},
]}

test_what_holds_each_state if {
	lib.stalls("d", "evictions") == ["d"] with input as states
	lib.stalls("d", "image") == [] with input as states
	lib.stalls("r", "image") == ["r"] with input as states
	lib.stalls("f", "evictions") == ["f"] with input as states
	lib.stalls("f", "image") == ["f"] with input as states
	lib.stalls("x", "image") == [] with input as states
}

test_every_state_of_the_path_is_in_the_table if {
	every s in ["upgrade-required", "cordon-required", "drain-required", "upgrade-done"] {
		lib.upgrade_state[s].name == s
	}
}

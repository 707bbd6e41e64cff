package drvcheck.lib_test

import data.drvcheck.lib

test_owned_workloads_are_left_to_their_owner if {
	names := {w.object.name | some w in input.workloads; lib.reported(w)} with input as {"workloads": [
		{"object": {"kind": "Deployment", "namespace": "a", "name": "d"}, "owned": false},
		{"object": {"kind": "ReplicaSet", "namespace": "a", "name": "d-1"}, "owned": true},
	]}
	names == {"d"}
}

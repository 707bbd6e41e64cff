package drvcheck.lib_test

import data.drvcheck.lib

rollout := {"upgrade": {
	"operator": true,
	"scopes": [
		{"name": "every managed node", "policy": {"drain": {"enabled": false}}},
		{"name": "NVIDIADriver/a100", "policy": {"drain": {"enabled": true}}},
	],
	"nodes": {
		"n1": {"scope": "every managed node", "auto_upgrade": true},
		"n2": {"scope": "NVIDIADriver/a100", "auto_upgrade": false},
	},
}}

test_operator_model_needs_a_profile if {
	lib.operator_model with input as rollout
	not lib.operator_model with input as {"upgrade": {"operator": false}}
	not lib.operator_model with input as {}
}

test_operator_rolls_managed_nodes_with_auto_upgrade if {
	lib.operator_rolls("n1") with input as rollout
	not lib.operator_rolls("n2") with input as rollout
	not lib.operator_rolls("n3") with input as rollout
	lib.upgrade_node("n3") == {} with input as rollout
}

test_after_deletion_follows_the_scopes_drain if {
	lib.after_deletion("n1") == "upgrade-failed" with input as rollout
	lib.after_deletion("n2") == "drain-required" with input as rollout
	lib.upgrade_scope("n3") == {} with input as rollout
}

test_listed_counts_past_five if {
	lib.listed(["a", "b"]) == "a, b"
	lib.listed(["a", "b", "c", "d", "e", "f", "g"]) == "a, b, c, d, e and 2 more"
}

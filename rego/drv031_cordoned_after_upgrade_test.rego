package drvcheck.rules.drv031_test

import data.drvcheck.rules.drv031

node(name, state, cordoned) := {
	"name": name, "upgrade_state": state, "unschedulable": cordoned,
	"object": {"kind": "Node", "namespace": "", "name": name},
}

test_done_and_cordoned if {
	fs := drv031.findings with input as {"nodes": [
		node("lab-node-1", "upgrade-done", true),
		node("lab-node-0", "upgrade-done", false),
		node("lab-node-2", "drain-required", true),
	]}
	count(fs) == 1
	some f in fs
	f.node == "lab-node-1"
	f.severity == "warning"
	f.field == "/spec/unschedulable"
	f.stalls == ["lab-node-1"]
	f.message == "lab-node-1 finished its driver upgrade but is still cordoned: kubectl uncordon lab-node-1"
}

test_operator_keeps_a_precordon_by_design if {
	doc := {
		"nodes": [node("g1", "upgrade-done", true)],
		"upgrade": {"operator": true, "scopes": [], "nodes": {"g1": {"scope": "s", "auto_upgrade": true}}},
	}
	some f in drv031.findings with input as doc
	f.message == "g1 finished its driver upgrade and is still cordoned: the cordon predates the upgrade, and the GPU Operator keeps such a cordon by design; kubectl uncordon g1 if it is no longer intended"
}

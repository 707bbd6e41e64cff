package drvcheck.rules.drv030_test

import data.drvcheck.rules.drv030

node(name, state) := {
	"name": name, "gpu": true, "upgrade_state": state,
	"object": {"kind": "Node", "namespace": "", "name": name},
}

no_drain := {"refusals": [], "overlaps": [], "needs_force": []}

blocked := {
	"refusals": [{
		"name": "trainer-pdb",
		"cause": "The disruption budget trainer-pdb needs 4 healthy pods and has 4 currently",
		"change": "lower trainer-pdb minAvailable from 4 to 3",
	}],
	"overlaps": [], "needs_force": [],
}

test_drain_required_names_the_budget if {
	fs := drv030.findings with input as {
		"nodes": [node("lab-node-1", "drain-required"), node("lab-node-0", "upgrade-done"), node("lab-node-2", "")],
		"drain": {"lab-node-1": blocked, "lab-node-0": no_drain, "lab-node-2": no_drain},
	}
	count(fs) == 1
	some f in fs
	f.node == "lab-node-1"
	f.severity == "warning"
	f.message == "lab-node-1 is in drain-required and waits for its drain; trainer-pdb refuses evictions (The disruption budget trainer-pdb needs 4 healthy pods and has 4 currently): lower trainer-pdb minAvailable from 4 to 3"
}

test_upgrade_failed_is_an_error if {
	some f in drv030.findings with input as {"nodes": [node("n", "upgrade-failed")], "drain": {"n": no_drain}}
	f.severity == "error"
	startswith(f.message, "n is in upgrade-failed and failed and is not retried")
}

test_wait_for_jobs_is_a_state if {
	some f in drv030.findings with input as {"nodes": [node("n", "wait-for-jobs-required")], "drain": {"n": no_drain}}
	f.message == "n is in wait-for-jobs-required and waits for the pods of waitForCompletion.podSelector to finish"
}

test_validation_does_not_blame_budgets if {
	some f in drv030.findings with input as {"nodes": [node("n", "validation-required")], "drain": {"n": blocked}}
	f.message == "n is in validation-required and waits for the validator pods to pass"
}

test_unknown_value if {
	some f in drv030.findings with input as {"nodes": [node("n", "upgrading")], "drain": {"n": no_drain}}
	f.message == "n is in upgrading and is not a state of the upgrade controller"
}

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
	startswith(f.message, "n is in upgrade-failed and failed: it moves on by itself once its driver pod is in sync and Ready")
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

# With an operator profile each state is explained with its numbers.
op_node(name, state) := {"name": name, "gpu": true, "upgrade_state": state, "object": {"kind": "Node", "namespace": "", "name": name}}

op_doc(state, node_extra, policy_extra) := {
	"nodes": [op_node("g1", state)],
	"drain": {"g1": {"refusals": [], "overlaps": [], "needs_force": []}},
	"upgrade": {"operator": true,
		"scopes": [{
			"name": "every managed node", "slots": 0, "in_progress": 1, "unavailable": 1, "managed": 4, "max_unavailable": 1,
			"policy": object.union({
				"max_parallel_upgrades": 1,
				"wait_for_completion": {"pod_selector": "app=batch", "timeout_seconds": 0},
				"pod_deletion": {"timeout_seconds": 300}, "drain": {"enabled": false, "timeout_seconds": 300},
			}, policy_extra),
		}],
		"nodes": {"g1": object.union({
			"scope": "every managed node", "auto_upgrade": true, "skip": false, "initial_unschedulable": false,
			"wait_started": 0, "validation_started": 0, "refusals": [], "not_deletable": [], "drain_needs_force": [],
		}, node_extra)},
	},
}

op_message(state, node_extra, policy_extra) := f.message if {
	some f in drv030.findings with input as op_doc(state, node_extra, policy_extra)
}

test_operator_upgrade_required_counts_the_window if {
	op_message("upgrade-required", {}, {}) == "g1 is in upgrade-required and waits for a free upgrade slot: 0 free in every managed node (maxParallelUpgrades 1 with 1 in progress; 1 of 4 managed node(s) cordoned or NotReady against maxUnavailable 1)"
	op_message("upgrade-required", {"skip": true}, {}) == "g1 is in upgrade-required and is labelled nvidia.com/gpu-driver-upgrade.skip=true: it stays here and never upgrades"
}

test_operator_wait_for_jobs_names_the_selector if {
	op_message("wait-for-jobs-required", {}, {}) == "g1 is in wait-for-jobs-required and waits for the pods of waitForCompletion.podSelector \"app=batch\" on it to finish (no timeout: it waits for good)"
	m := op_message("wait-for-jobs-required", {"wait_started": 1000}, {"wait_for_completion": {"pod_selector": "app=batch", "timeout_seconds": 60}})
	startswith(m, "g1 is in wait-for-jobs-required and waits for the pods of waitForCompletion.podSelector \"app=batch\" on it to finish (after 60s it goes to pod-deletion-required, started ")
}

test_operator_pod_deletion_names_only_its_blockers if {
	ref := {"kind": "PodDisruptionBudget", "namespace": "ml", "name": "trainer-pdb"}
	refusals := [
		{"name": "trainer-pdb", "budget": ref, "phase": "podDeletion", "cause": "needs 4", "change": "lower it"},
		{"name": "web-pdb", "budget": ref, "phase": "drain", "cause": "needs 2", "change": "lower web"},
	]
	m := op_message("pod-deletion-required", {"refusals": refusals, "not_deletable": [{"pod": "mon/probe", "reason": "daemonset"}]}, {})
	m == "g1 is in pod-deletion-required and waits for its GPU pods to be deleted (after 300s it goes to upgrade-failed); trainer-pdb refuses evictions in podDeletion (needs 4): lower it; mon/probe cannot be deleted (daemonset)"
	d := op_message("drain-required", {"refusals": refusals}, {"drain": {"enabled": true, "timeout_seconds": 0}})
	d == "g1 is in drain-required and waits for its drain fallback (no timeout: it waits for good); web-pdb refuses evictions in drain (needs 2): lower web"
}

test_operator_failed_and_restart_and_precordoned if {
	f := op_message("upgrade-failed", {}, {})
	contains(f, "It recovers by itself once its driver pod is in sync and Ready")
	r := op_message("pod-restart-required", {"initial_unschedulable": true}, {})
	contains(r, "the old driver is already unloaded")
	endswith(r, "; it was cordoned before its upgrade, so the operator leaves it cordoned after it, by design")
	op_message("node-maintenance-required", {}, {}) == "g1 is in node-maintenance-required and is a state of the upgrade library's requestor mode, which the GPU Operator does not use"
}

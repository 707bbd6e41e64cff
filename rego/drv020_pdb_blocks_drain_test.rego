package drvcheck.rules.drv020_test

import data.drvcheck.rules.drv020

pdb(name, healthy, desired, allowed) := {
	"name": name, "object": {"kind": "PodDisruptionBudget", "namespace": "gpu-drv", "name": name},
	"rule": "minAvailable 4", "pods": 4, "healthy": healthy, "desired": desired, "allowed": allowed,
	"nodes": ["lab-node-0", "lab-node-1"], "status": "computed", "sync_error": "",
	"change": "lower trainer-pdb minAvailable from 4 to 3", "change_field": "/spec/minAvailable",
}

test_zero_allowed_is_an_error if {
	fs := drv020.findings with input as {"pdbs": [pdb("trainer-pdb", 4, 4, 0), pdb("ok-pdb", 4, 3, 1)]}
	count(fs) == 1
	some f in fs
	f.rule == "DRV020"
	f.severity == "error"
	f.object.name == "trainer-pdb"
	f.field == "/spec/minAvailable"
	f.message == "trainer-pdb allows 0 disruptions (minAvailable 4: 4 healthy, 4 needed); draining lab-node-0, lab-node-1 is refused; lower trainer-pdb minAvailable from 4 to 3"
}

test_budget_without_pods_is_left_to_drv024 if {
	p := object.union(pdb("empty", 0, 0, 0), {"pods": 0, "nodes": []})
	count(drv020.findings) == 0 with input as {"pdbs": [p]}
}

test_stale_status_says_so if {
	p := object.union(pdb("trainer-pdb", 4, 4, 0), {"status": "stale", "status_note": "status is unknown"})
	some f in drv020.findings with input as {"pdbs": [p]}
	contains(f.message, "; status is unknown)")
}

# The lab as drvcheck input prints it: trainer-pdb (minAvailable 4 of 4
# replicas) refuses every eviction.
test_lab_trainer_pdb_blocks if {
	fs := drv020.findings with input as data.drvcheck.testdata.lab
	count(fs) == 1
	some f in fs
	f.object == {"kind": "PodDisruptionBudget", "namespace": "gpu-drv", "name": "trainer-pdb"}
	f.field == "/spec/minAvailable"
	f.fix == "lower trainer-pdb minAvailable from 4 to 3"
	f.stalls == []
}

# lab-node-1 in drain-required is held by trainer-pdb; lab-node-2 in
# pod-restart-required is not (evictions are behind it).
test_lab_budget_stalls_the_draining_node if {
	lab := data.drvcheck.testdata.lab
	states := {"lab-node-1": "drain-required", "lab-node-2": "pod-restart-required"}
	nodes := [object.union(n, {"upgrade_state": object.get(states, n.name, "")}) | some n in lab.nodes]
	some f in drv020.findings with input as object.union(lab, {"nodes": nodes})
	f.stalls == ["lab-node-1"]
}

# With an operator profile, a budget the operator's phases meet is an
# error naming the phase; one only a manual drain meets is a warning.
operator(refusals) := {
	"pdbs": [pdb("trainer-pdb", 4, 4, 0)],
	"upgrade": {
		"operator": true, "scopes": [],
		"nodes": {
			"lab-node-0": {"scope": "s", "auto_upgrade": true, "refusals": refusals},
			"lab-node-1": {"scope": "s", "auto_upgrade": true, "refusals": []},
		},
		"refusing": {"gpu-drv/trainer-pdb": [{"node": "lab-node-0", "phase": r.phase} | some r in refusals]},
	},
}

trainer_ref := {"kind": "PodDisruptionBudget", "namespace": "gpu-drv", "name": "trainer-pdb"}

test_operator_phase_refused_is_an_error if {
	some f in drv020.findings with input as operator([{"budget": trainer_ref, "phase": "podDeletion"}])
	f.severity == "error"
	f.message == "trainer-pdb allows 0 disruptions (minAvailable 4: 4 healthy, 4 needed); the GPU Operator's podDeletion on lab-node-0 is refused, so the upgrade of those nodes fails when the phase times out; lower trainer-pdb minAvailable from 4 to 3"
}

test_only_a_manual_drain_is_a_warning if {
	some f in drv020.findings with input as operator([])
	f.severity == "warning"
	contains(f.message, "a manual kubectl drain of lab-node-0, lab-node-1 is refused, but the GPU Operator's upgrade does not evict its pods")
	f.stalls == []
}

test_auto_upgrade_off_is_the_manual_procedure if {
	doc := operator([])
	off := object.union(doc, {"upgrade": {"nodes": {"lab-node-1": {"auto_upgrade": false}}}})
	some f in drv020.findings with input as off
	f.severity == "error"
	contains(f.message, "draining lab-node-1 by hand (autoUpgrade is off) is refused")
}

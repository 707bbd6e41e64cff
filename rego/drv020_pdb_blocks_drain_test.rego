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

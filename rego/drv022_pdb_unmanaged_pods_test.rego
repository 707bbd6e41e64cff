package drvcheck.rules.drv022_test

import data.drvcheck.rules.drv022

pdb(name, min, max, unmanaged) := {
	"name": name, "object": {"kind": "PodDisruptionBudget", "namespace": "default", "name": name},
	"min_available": min, "max_unavailable": max, "unmanaged_pods": unmanaged, "expected": 0,
	"rule": rule(min, max),
}

rule(min, "") := sprintf("minAvailable %s", [min])

rule("", max) := sprintf("maxUnavailable %s", [max])

test_max_unavailable_over_naked_pods_warns if {
	fs := drv022.findings with input as {"pdbs": [pdb("solo", "", "1", ["default/solo"])]}
	count(fs) == 1
	some f in fs
	f.severity == "warning"
	f.field == "/spec/maxUnavailable"
	f.message == "solo (maxUnavailable 1) selects 1 pod(s) without a controller (default/solo): they add nothing to its 0 expected pods; use an integer minAvailable"
}

test_percentage_min_available_warns if {
	fs := drv022.findings with input as {"pdbs": [pdb("pct", "50%", "", ["default/solo"])]}
	some f in fs
	f.field == "/spec/minAvailable"
}

test_integer_min_available_counts_them if {
	count(drv022.findings) == 0 with input as {"pdbs": [pdb("int", "1", "", ["default/solo"])]}
}

test_managed_pods_only if {
	count(drv022.findings) == 0 with input as {"pdbs": [pdb("dep", "", "1", [])]}
}

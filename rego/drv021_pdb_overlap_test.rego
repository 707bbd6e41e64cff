package drvcheck.rules.drv021_test

import data.drvcheck.rules.drv021

pdb(name, overlapping) := {
	"name": name, "object": {"kind": "PodDisruptionBudget", "namespace": "default", "name": name},
	"overlapping_pods": overlapping,
}

test_overlap_is_an_error_on_each_budget if {
	fs := drv021.findings with input as {"pdbs": [
		pdb("by-app", [{"pod": "default/web-0", "budgets": ["by-tier"]}, {"pod": "default/web-1", "budgets": ["by-tier"]}]),
		pdb("by-tier", [{"pod": "default/web-0", "budgets": ["by-app"]}, {"pod": "default/web-1", "budgets": ["by-app"]}]),
		pdb("alone", []),
	]}
	count(fs) == 2
	some f in fs
	f.object.name == "by-app"
	f.severity == "error"
	f.message == "by-app shares 2 pod(s) with by-tier (default/web-0, default/web-1): the eviction API answers 500 for them, so no drain can evict them"
}

test_no_overlap_no_finding if {
	count(drv021.findings) == 0 with input as {"pdbs": [pdb("alone", [])]}
}

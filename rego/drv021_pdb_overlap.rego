# DRV021: a pod is selected by more than one PodDisruptionBudget. The
# eviction API then answers 500 ("This pod has more than one
# PodDisruptionBudget, which the eviction subresource does not support.")
# and kubectl drain gives up on the node.
package drvcheck.rules.drv021

import data.drvcheck.lib

meta := {
	"id": "DRV021",
	"title": "pdb-overlap",
	"severity": "error",
	"help": "The eviction subresource refuses pods that more than one budget selects, whatever the budgets allow, so a drain can never evict them. Narrow the selectors so that each pod has one budget.",
}

findings contains f if {
	some pdb in input.pdbs
	count(pdb.overlapping_pods) > 0
	others := {name | some o in pdb.overlapping_pods; some name in o.budgets}
	pods := [o.pod | some o in pdb.overlapping_pods]
	f := lib.finding(meta, pdb.object, {
		"message": sprintf("%s shares %d pod(s) with %s (%s): the eviction API answers 500 for them, so no drain can evict them", [
			pdb.name, count(pods), concat(", ", sort(others)), concat(", ", pods),
		]),
		"field": "/spec/selector",
		"stalls": [name |
			some name, _ in lib.upgrade_holds
			lib.stalls(name, "evictions") != []
			some o in input.drain[name].overlaps
			pdb.name in o.budgets
		],
	})
}

# DRV024: a PodDisruptionBudget selects no pod and no pod template. It
# protects nothing, usually because of a typo in its selector, or because
# its selector is unset (which selects nothing in policy/v1).
package drvcheck.rules.drv024

import data.drvcheck.lib

meta := {
	"id": "DRV024",
	"title": "pdb-selects-nothing",
	"severity": "warning",
	"help": "The budget's selector matches no pod and no workload's pod template in its namespace, so it protects nothing. Check the selector's labels against the workload's template labels.",
}

findings contains f if {
	some pdb in input.pdbs
	pdb.pods == 0
	count(pdb.templates) == 0
	f := lib.finding(meta, pdb.object, {
		"message": sprintf("%s selects no pod or pod template in %s (selector %s)", [pdb.name, pdb.namespace, pdb.selector]),
		"field": "/spec/selector",
	})
}

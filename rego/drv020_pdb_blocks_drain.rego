# DRV020: a PodDisruptionBudget allows 0 disruptions, so the eviction API
# answers 429 for every pod it selects and a drain of any node hosting one
# waits (the GPU Operator's upgrade stalls in drain-required).
package drvcheck.rules.drv020

import data.drvcheck.lib

meta := {
	"id": "DRV020",
	"title": "pdb-blocks-drain",
	"severity": "error",
	"help": "A driver upgrade drains the node through the eviction API, which refuses while the budget allows 0 disruptions. Make room before the upgrade: lower minAvailable (or raise maxUnavailable) so that at least one pod may go, as the finding's change says.",
}

findings contains f if {
	some pdb in input.pdbs
	pdb.pods > 0
	pdb.allowed == 0
	f := lib.finding(meta, pdb.object, {
		"message": sprintf("%s allows 0 disruptions (%s: %d healthy, %d needed%s); draining %s is refused; %s", [
			pdb.name, pdb.rule, pdb.healthy, pdb.desired, note(pdb), where(pdb), pdb.change,
		]),
		"field": pdb.change_field,
		"fix": pdb.change,
		"stalls": [name |
			some name in pdb.nodes
			lib.stalls(name, "evictions") != []
			refuses(input.drain[name], pdb)
		],
	})
}

# refuses holds when the budget refuses an eviction from the node drained.
refuses(drain, pdb) if {
	some r in drain.refusals
	r.budget == pdb.object
}

where(pdb) := concat(", ", pdb.nodes) if count(pdb.nodes) > 0

else := "any node its pods land on"

note(pdb) := sprintf("; %s", [pdb.status_note]) if pdb.status == "stale"

else := sprintf("; sync failed: %s", [pdb.sync_error]) if pdb.sync_error != ""

else := ""

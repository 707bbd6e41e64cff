# DRV020: a PodDisruptionBudget allows 0 disruptions, so the eviction API
# answers 429 for every pod it selects. Without an operator profile (the
# manual procedure) every drain of a node hosting one waits. With one, the
# GPU Operator evicts only what its phases take (GPU pods, and the drain
# fallback's pods when enabled): a budget those phases meet fails the
# upgrade and is an error; one that only a manual kubectl drain would meet
# is a warning.
package drvcheck.rules.drv020

import data.drvcheck.lib

meta := {
	"id": "DRV020",
	"title": "pdb-blocks-drain",
	"severity": "error",
	"help": "A driver upgrade removes pods through the eviction API, which refuses while the budget allows 0 disruptions. Make room before the upgrade: lower minAvailable (or raise maxUnavailable) so that at least one pod may go, as the finding's change says. With the GPU Operator, only the pods its phases remove (GPU pods; the drain fallback's when enabled) matter to the upgrade; other budgets still block a manual kubectl drain.",
}

findings contains f if {
	some pdb in input.pdbs
	pdb.pods > 0
	pdb.allowed == 0
	v := verdict(pdb)
	f := lib.finding(meta, pdb.object, {
		"severity": v.severity,
		"message": sprintf("%s allows 0 disruptions (%s: %d healthy, %d needed%s); %s; %s", [
			pdb.name, pdb.rule, pdb.healthy, pdb.desired, note(pdb), v.says, pdb.change,
		]),
		"field": pdb.change_field,
		"fix": pdb.change,
		"stalls": v.stalls,
	})
}

# verdict says what the budget holds up: a manual drain (no operator
# profile), the operator's upgrade of the nodes whose phases it refuses,
# a manual upgrade of nodes whose scope has autoUpgrade off, or only a
# manual drain the upgrade never runs.
verdict(pdb) := {"severity": "error", "says": sprintf("draining %s is refused", [where(pdb)]), "stalls": drained(pdb)} if {
	not lib.operator_model
} else := v if {
	refused := operator_refused(pdb)
	count(refused) > 0
	phases := sort({phase | some _, phase in refused})
	v := {
		"severity": "error",
		"says": sprintf("the GPU Operator's %s on %s is refused, so the upgrade of those nodes fails when the phase times out", [
			concat(" and ", phases), lib.listed(sort([name | some name, _ in refused])),
		]),
		"stalls": [name | some name, _ in refused; lib.stalls(name, "evictions") != []],
	}
} else := v if {
	hand := [name | some name in pdb.nodes; lib.upgrade_node(name).auto_upgrade == false]
	count(hand) > 0
	v := {"severity": "error", "says": sprintf("draining %s by hand (autoUpgrade is off) is refused", [lib.listed(hand)]), "stalls": drained(pdb)}
} else := {
	"severity": "warning",
	"says": sprintf("a manual kubectl drain of %s is refused, but the GPU Operator's upgrade does not evict its pods (it deletes GPU pods, and drains only as configured)", [where(pdb)]),
	"stalls": [],
}

# operator_refused maps each node whose upgrade phases the budget refuses
# to the first such phase (input.upgrade.refusing indexes them by budget).
operator_refused(pdb) := {r.node: r.phase |
	some r in object.get(input.upgrade, ["refusing", sprintf("%s/%s", [pdb.object.namespace, pdb.object.name])], [])
}

# drained are the nodes in a drain state whose drain the budget refuses.
drained(pdb) := [name |
	some name in pdb.nodes
	lib.stalls(name, "evictions") != []
	refuses(input.drain[name], pdb)
]

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

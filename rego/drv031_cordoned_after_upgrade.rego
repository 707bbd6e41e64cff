# DRV031: a node in upgrade-done is still unschedulable. A manual drain
# leaves the node cordoned; if nobody uncordons it, it sits idle. The GPU
# Operator never leaves its own cordon behind: on a node it rolls, the
# cordon predates the upgrade and was kept by design, so the message says
# so and only suggests an uncordon if it is no longer intended.
package drvcheck.rules.drv031

import data.drvcheck.lib

meta := {
	"id": "DRV031",
	"title": "cordoned-after-upgrade",
	"severity": "warning",
	"help": "The driver upgrade finished but the node is still cordoned, so no new pod lands on it. Run kubectl uncordon NODE unless it is cordoned on purpose.",
	"needs": ["nodes"],
}

findings contains f if {
	some node in input.nodes
	node.upgrade_state == "upgrade-done"
	node.unschedulable
	f := lib.finding(meta, node.object, {
		"node": node.name,
		"message": message(node.name),
		"field": "/spec/unschedulable",
		"stalls": [node.name],
	})
}

message(name) := sprintf("%s finished its driver upgrade and is still cordoned: the cordon predates the upgrade, and the GPU Operator keeps such a cordon by design; kubectl uncordon %s if it is no longer intended", [name, name]) if {
	lib.operator_rolls(name)
} else := sprintf("%s finished its driver upgrade but is still cordoned: kubectl uncordon %s", [name, name])

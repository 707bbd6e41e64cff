# DRV031: a node in upgrade-done is still unschedulable. A drain leaves the
# node cordoned; if nobody uncordons it (a manual upgrade, or a node that was
# cordoned before the operator started), it sits idle.
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
		"message": sprintf("%s finished its driver upgrade but is still cordoned: kubectl uncordon %s", [node.name, node.name]),
		"field": "/spec/unschedulable",
		"stalls": [node.name],
	})
}

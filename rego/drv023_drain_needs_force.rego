# DRV023: a GPU node hosts pods without a controller or with emptyDir
# volumes. kubectl drain (and the GPU Operator's drain, unless
# driver.upgradePolicy.drain.force / deleteEmptyDir are set) refuses the
# whole node: "cannot delete Pods that declare no controller (use --force
# to override)", "cannot delete Pods with local storage (use
# --delete-emptydir-data to override)".
package drvcheck.rules.drv023

import data.drvcheck.lib

meta := {
	"id": "DRV023",
	"title": "drain-needs-force",
	"severity": "warning",
	"help": "A drain evicts no pod at all while one needs a flag it was not given, and the node stays cordoned. Give bare pods a controller (or accept losing them with --force / drain.force), and expect emptyDir data to be deleted (--delete-emptydir-data / drain.deleteEmptyDir).",
}

findings contains f if {
	some node in lib.gpu_nodes
	d := input.drain[node.name]
	parts := array.concat(force(d), emptydir(d))
	count(parts) > 0
	f := lib.finding(meta, node.object, {
		"node": node.name,
		"message": sprintf("draining %s needs %s", [node.name, concat(", and ", parts)]),
	})
}

force(d) := [sprintf("--force for %s (no controller: deleted for good)", [pods(d.needs_force)])] if {
	count(d.needs_force) > 0
} else := []

emptydir(d) := [sprintf("--delete-emptydir-data for %s (emptyDir data is lost)", [pods(d.needs_delete_emptydir)])] if {
	count(d.needs_delete_emptydir) > 0
} else := []

pods(list) := concat(", ", [p.pod | some p in list])

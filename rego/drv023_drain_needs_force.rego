# DRV023: a GPU node hosts pods without a controller or with emptyDir
# volumes. kubectl drain (and the GPU Operator's drain, unless
# driver.upgradePolicy.drain.force / deleteEmptyDir are set) refuses the
# whole node: "cannot delete Pods that declare no controller (use --force
# to override)", "cannot delete Pods with local storage (use
# --delete-emptydir-data to override)". The finding is on the workload whose
# manifest holds the cause, once per node, and points at the pod's owner
# (or where it would be named) or its emptyDir volume.
package drvcheck.rules.drv023

import data.drvcheck.lib

meta := {
	"id": "DRV023",
	"title": "drain-needs-force",
	"severity": "warning",
	"help": "A drain evicts no pod at all while one needs a flag it was not given, and the node stays cordoned. Give bare pods a controller (or accept losing them with --force / drain.force), and expect emptyDir data to be deleted (--delete-emptydir-data / drain.deleteEmptyDir).",
	"needs": ["nodes"],
}

findings contains f if {
	some node in lib.gpu_nodes
	d := input.drain[node.name]
	some p in array.concat(d.needs_force, d.needs_delete_emptydir)
	w := p.workload
	force := [q | some q in d.needs_force; q.workload == w]
	emptydir := [q | some q in d.needs_delete_emptydir; q.workload == w]
	f := lib.finding(meta, w, {
		"node": node.name,
		"message": sprintf("draining %s needs %s", [node.name, concat(", and ", array.concat(force_part(force), emptydir_part(emptydir)))]),
		"field": array.concat(force, emptydir)[0].field,
		"stalls": lib.stalls(node.name, "evictions"),
	})
}

force_part(pods) := [sprintf("--force for %s (no controller: deleted for good)", [names(pods)])] if {
	count(pods) > 0
} else := []

emptydir_part(pods) := [sprintf("--delete-emptydir-data for %s (emptyDir data is lost)", [names(pods)])] if {
	count(pods) > 0
} else := []

names(pods) := concat(", ", [p.pod | some p in pods])

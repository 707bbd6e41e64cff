# DRV023: a GPU node hosts pods without a controller or with emptyDir
# volumes. kubectl drain (and the GPU Operator's drain fallback, unless
# driver.upgradePolicy.drain.force / deleteEmptyDir are set) refuses the
# whole node: "cannot delete Pods that declare no controller (use --force
# to override)", "cannot delete Pods with local storage (use
# --delete-emptydir-data to override)". The finding is on the workload whose
# manifest holds the cause, once per node, and points at the pod's owner
# (or where it would be named) or its emptyDir volume. With an operator
# profile, GPU pods the GPU-pod deletion cannot remove are DRV025's, and
# the message says whether the operator's drain fallback meets the pods or
# only a manual drain would.
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
	count(d.needs_force) + count(d.needs_delete_emptydir) > 0 # most nodes have neither
	skip := {e.pod | some e in object.get(lib.upgrade_node(node.name), "not_deletable", [])}
	some p in array.concat(d.needs_force, d.needs_delete_emptydir)
	not p.pod in skip
	w := p.workload
	force := [q | some q in d.needs_force; q.workload == w; not q.pod in skip]
	emptydir := [q | some q in d.needs_delete_emptydir; q.workload == w; not q.pod in skip]
	pods := array.concat(force, emptydir)
	needs := concat(", and ", array.concat(force_part(force), emptydir_part(emptydir)))
	f := lib.finding(meta, w, {
		"node": node.name,
		"message": message(node.name, needs, pods),
		"field": pods[0].field,
		"stalls": stalls(node.name, pods),
	})
}

# message says who meets the pods: a drain (no operator profile, or a
# node the operator does not roll), the operator's drain fallback, or
# only a manual drain.
message(name, needs, pods) := sprintf("draining %s needs %s", [name, needs]) if {
	not lib.operator_rolls(name)
} else := sprintf("the GPU Operator's drain fallback on %s needs %s (driver.upgradePolicy.drain.force / deleteEmptyDir)", [name, needs]) if {
	fallback_meets(name, pods)
} else := sprintf("a manual kubectl drain of %s needs %s; the GPU Operator's upgrade does not remove them", [name, needs])

fallback_meets(name, pods) if {
	n := lib.upgrade_node(name)
	taken := {e.pod | some e in array.concat(n.drain_needs_force, n.drain_needs_emptydir)}
	some p in pods
	p.pod in taken
}

stalls(name, pods) := lib.stalls(name, "evictions") if not lib.operator_rolls(name)

else := lib.stalls(name, "evictions") if fallback_meets(name, pods)

else := []

force_part(pods) := [sprintf("--force for %s (no controller: deleted for good)", [names(pods)])] if {
	count(pods) > 0
} else := []

emptydir_part(pods) := [sprintf("--delete-emptydir-data for %s (emptyDir data is lost)", [names(pods)])] if {
	count(pods) > 0
} else := []

names(pods) := concat(", ", [p.pod | some p in pods])

# DRV013: required podAntiAffinity on kubernetes.io/hostname between the
# replicas of one workload, with more replicas than nodes they may run on.
# Each replica needs a node of its own; the nodes are those that pass
# cordon, taints and node affinity, counted by distinct hostname label (a
# node without the label never rejects, so then there is no limit). The
# extra replicas stay Pending, and a drain of any node hosting one blocks.
package drvcheck.rules.drv013

import data.drvcheck.lib

meta := {
	"id": "DRV013",
	"title": "anti-affinity-exceeds-nodes",
	"severity": "error",
	"help": "Required podAntiAffinity on kubernetes.io/hostname allows one replica per node. With more replicas than eligible nodes, the rest stay Pending, and draining a node (a driver upgrade) leaves its replica nowhere to go. Lower the replicas, add nodes, or make the anti-affinity preferred.",
	"needs": ["nodes"],
}

findings contains f if {
	some w in input.workloads
	a := w.anti_affinity
	w.replicas > a.domains # the selective test first: most workloads stop here
	a.self
	not a.unlimited
	w.replicas > 1
	lib.reported(w)
	w.placement.matching > 0 # no node at all is DRV010's finding
	f := lib.finding(meta, w.object, {
		"message": sprintf(
			"%s%d replicas need a node each (required podAntiAffinity on %s) but only %d may run them, so %d stay Pending (%s)",
			[lib.template_prefix(w), w.replicas, a.topology_key, a.domains, w.replicas - a.domains, w.placement.message],
		),
		"field": a.field,
	})
}

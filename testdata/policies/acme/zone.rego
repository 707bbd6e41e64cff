# ACME002: every GPU node carries a topology.kubernetes.io/zone label, which
# the platform's spread constraints need.
package drvcheck.rules.acme002

import data.drvcheck.lib

meta := {
	"id": "ACME002",
	"title": "gpu-node-without-zone",
	"severity": "warning",
	"help": "Label the node with topology.kubernetes.io/zone.",
}

findings contains f if {
	some node in lib.gpu_nodes
	not node.labels["topology.kubernetes.io/zone"]
	f := lib.finding(meta, node.object, {
		"node": node.name,
		"message": sprintf("GPU node %s has no topology.kubernetes.io/zone label", [node.name]),
		"field": ["metadata", "labels"],
	})
}

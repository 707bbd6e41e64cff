# ACME001: GPU nodes run only kernels the platform team approved
# (data.acme.kernels, loaded with --data).
package drvcheck.rules.acme001

import data.drvcheck.lib

meta := {
	"id": "ACME001",
	"title": "kernel-not-approved",
	"severity": "warning",
	"help": "Only kernels listed in data.acme.kernels are approved for GPU nodes.",
}

findings contains f if {
	some node in lib.gpu_nodes
	not node.kernel in data.acme.kernels
	f := lib.finding(meta, node.object, {
		"node": node.name,
		"message": sprintf("kernel %s is not approved", [node.kernel]),
		"field": ["metadata", "labels", "feature.node.kubernetes.io/kernel-version.full"],
	})
}

# DRV002: a GPU node lacks, or has empty, a label its driver image tag is
# made from. No tag is guessed; the finding names every such label.
package drvcheck.rules.drv002

import data.drvcheck.lib

meta := {
	"id": "DRV002",
	"title": "incomplete-node-facts",
	"severity": "error",
	"help": "The tag <driver-branch>-<kernel>-<os-tag> is made from node labels set by gpu-feature-discovery (nvidia.com/cuda.driver-version.major, or the older nvidia.com/cuda.driver.major) and node-feature-discovery (kernel-version.full, system-os_release.ID and VERSION_ID). One is missing or empty, so the image this node needs cannot be known. Check that NFD and GFD run on the node. With an operator profile the version is the profile's, so only the NFD labels the operator's image names are needed.",
	"needs": ["nodes"],
	# plan --all reads its findings: the node whose image is unknown stalls there
	"rollout": true,
}

findings contains f if {
	some node in lib.managed_gpu_nodes
	count(node.problems) > 0
	parts := [sprintf("%s is %s", [p.label, p.reason]) | some p in node.problems]
	f := lib.finding(meta, node.object, {
		"node": node.name,
		"message": sprintf("GPU node %s has no driver image tag: %s", [node.name, concat(", ", parts)]),
		"field": node.problems[0].field,
		"image": "unknown",
		"fix": "label the node as node-feature-discovery and gpu-feature-discovery do (check that both run on it)",
		"stalls": lib.stalls(node.name, "image"),
	})
}

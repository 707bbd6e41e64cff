# DRV025: GPU-pod deletion, the GPU Operator's first phase that removes
# pods, must remove every pod on the node that uses a GPU, and fails at
# once when one cannot go: a GPU DaemonSet pod or static pod (kubectl's
# filters keep them, so the deleted count differs from the GPU pods'), a
# bare pod without podDeletion.force, a pod with emptyDir without
# podDeletion.deleteEmptyDir (k8s-operator-libs pod_manager.go). The node
# then goes to drain-required (drain enabled) or upgrade-failed. One
# finding per workload and reason, naming the nodes.
package drvcheck.rules.drv025

import data.drvcheck.lib

meta := {
	"id": "DRV025",
	"title": "gpu-pod-not-deletable",
	"severity": "error",
	"help": "The GPU Operator deletes every pod that requests a GPU before it reloads the driver, and fails the node at once when one cannot be deleted. Run GPU DaemonSets and static pods outside the upgraded nodes or without a GPU request; give bare GPU pods a controller or set driver.upgradePolicy.podDeletion.force; set podDeletion.deleteEmptyDir when emptyDir data may be lost.",
	"needs": ["nodes"],
}

findings contains f if {
	some key in keys
	hits := [h | some h in entries; [h[1].workload, h[1].reason] == key]
	names := sort({h[0] | some h in hits})
	f := lib.finding(meta, key[0], {
		"message": sprintf("GPU-pod deletion on %s cannot remove %s: %s; the phase fails at once and the node goes to %s", [
			lib.listed(names), lib.listed(sort({h[1].pod | some h in hits})), why[key[1]], lib.after_deletion(names[0]),
		]),
		"field": hits[0][1].field,
		"stalls": [name | some name in names; lib.stalls(name, "evictions") != []],
	})
}

# entries are [node, entry] for every pod GPU-pod deletion cannot remove,
# gathered once: the findings group them by workload and reason.
entries := [[name, e] |
	some name, n in input.upgrade.nodes
	some e in n.not_deletable
]

keys contains [h[1].workload, h[1].reason] if some h in entries

why := {
	"daemonset": "a DaemonSet pod that requests a GPU stays on the node, so the deleted pods never match the GPU pods",
	"mirror": "a static pod that requests a GPU cannot be deleted through the API",
	"no controller": "it has no controller (set driver.upgradePolicy.podDeletion.force to delete it for good)",
	"emptyDir": "it has an emptyDir volume (set driver.upgradePolicy.podDeletion.deleteEmptyDir; its data is lost)",
}

# DRV004: one ClusterPolicy deploys drivers to GPU nodes of more than one
# OS. The operator composes one image for every node, with the OS tag of
# one arbitrary GPU node, so the nodes of the other OS get an image built
# for another, and the image flips between reconciles (gpu-operator#1200,
# #1436, #328).
package drvcheck.rules.drv004

import data.drvcheck.lib

meta := {
	"id": "DRV004",
	"title": "clusterpolicy-mixed-os",
	"severity": "error",
	"help": "Under a ClusterPolicy the GPU Operator reads the OS of one GPU node (whichever its cache lists first) and uses that OS tag in the driver image of every node. With more than one OS among the managed GPU nodes, some nodes pull a driver built for another OS. Manage drivers with NVIDIADriver objects (useNvidiaDriverCRD: true), one per OS pool, or keep one OS per cluster.",
	"needs": ["nodes"],
}

findings contains f if {
	input.operator.mode == "clusterpolicy"
	count(input.operator.os_tags) > 1
	d := input.operator.drivers[0]
	f := lib.finding(meta, d.object, {
		"message": sprintf("%s deploys one driver image to every GPU node with the OS tag of one of them, but they run %s: the operator uses one of these for all, so some nodes pull an image built for another OS", [d.owner, concat(", ", input.operator.os_tags)]),
		"fix": sprintf("set useNvidiaDriverCRD: true and give one NVIDIADriver per OS (nodeSelector feature.node.kubernetes.io/system-os_release.ID and VERSION_ID) for %s", [concat(", ", input.operator.os_tags)]),
	})
}

# DRV005: no single NVIDIADriver owns a GPU node: several select it (the
# operator then assigns no owner at all), or none does and no NVIDIADriver
# is the default. The node gets no driver.
package drvcheck.rules.drv005

import data.drvcheck.lib

meta := {
	"id": "DRV005",
	"title": "nvidiadriver-owner",
	"severity": "error",
	"help": "With NVIDIADriver objects, each GPU node is owned by the one whose nodeSelector matches it (no nodeSelector: every GPU node), else by the one with default: true. When more than one matches, the operator refuses to assign owners; when none matches and there is no default, the node gets no driver. Make the nodeSelectors disjoint and cover every GPU node, or add a default NVIDIADriver.",
	"needs": ["nodes"],
}

findings contains f if {
	some node in lib.gpu_nodes
	why := object.get(node, ["image", "owner_error"], "")
	why != ""
	f := lib.finding(meta, node.object, {
		"node": node.name,
		"message": sprintf("GPU node %s gets no driver: %s", [node.name, why]),
		"field": "/metadata/labels",
		"fix": "make the NVIDIADrivers' nodeSelectors disjoint and cover this node, or add one with default: true",
	})
}

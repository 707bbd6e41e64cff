# DRV001: a GPU node's precompiled driver image tag is in none of the
# configured sources (support-matrix rows, registry tags). Without a source
# configured the rule cannot judge and stays silent; drvcheck says so.
package drvcheck.rules.drv001

import data.drvcheck.lib

meta := {
	"id": "DRV001",
	"title": "missing-driver-image",
	"severity": "error",
	"help": "The GPU Operator pulls <driver-branch>-<kernel>-<os-tag> for this node. The tag is in no configured support matrix or registry, so the driver Pod on this node would fail with ImagePullBackOff. Build and push the image (or add the row) before the node or its kernel rolls out.",
	"needs": ["catalog", "nodes"],
}

# image.checked holds only with a tag and a source to look in; without a
# source the rule cannot judge and stays silent (drvcheck says so, from
# meta.needs). The finding points at the label of the part of the tag no
# source has (image.field): the kernel label after a kernel bump.
findings contains f if {
	some node in lib.gpu_nodes
	node.image.checked
	not node.image.present
	f := lib.finding(meta, node.object, {
		"node": node.name,
		"tag": node.tag,
		"message": sprintf("no precompiled driver image %s in %s", [node.tag, input.catalog.description]),
		"field": node.image.field,
		"image": "missing",
		"fix": sprintf("build and push %s, or add the row %s,%s,%s to the support matrix", [node.tag, node.branch, node.kernel, node.os_tag]),
		"stalls": lib.stalls(node.name, "image"),
	})
}

# DRV006: the GPU Operator deploys a driver to a node whose OS it publishes
# no driver images for (Talos, Debian, OKD's scos...): the tag it makes
# does not exist anywhere (gpu-operator#647, #1212, #1533).
package drvcheck.rules.drv006

import data.drvcheck.lib

meta := {
	"id": "DRV006",
	"title": "unsupported-os-tag",
	"severity": "warning",
	"help": "NVIDIA publishes GPU Operator driver images for Ubuntu, RHEL, Rocky Linux, Oracle Linux, RHCOS and SLES (and SL Micro). On another OS the operator still composes <version>-<os-tag>, a tag that exists nowhere unless you build it. Build and push your own image, install the driver on the host (the node is then pre-installed), or run the GPU nodes on a supported OS.",
	"needs": ["nodes"],
}

# supported are the NFD system-os_release.ID values the operator has images for.
supported := {"ubuntu", "rhel", "rocky", "ol", "rhcos", "sles", "sl-micro"}

findings contains f if {
	input.operator.profile
	some node in lib.managed_gpu_nodes
	node.os_id != ""
	not node.os_id in supported
	not object.get(node.image, "os_tag", "") in object.get(input.operator, "listed_os_tags", [])
	f := lib.finding(meta, node.object, {
		"node": node.name,
		"message": sprintf("GPU node %s runs %s, for which the GPU Operator publishes no driver images: it would pull %s", [node.name, node.os_id, node.image.ref]),
		"field": "/metadata/labels/feature.node.kubernetes.io~1system-os_release.ID",
		"fix": "build and push the image yourself, install the driver on the host, or use a supported OS",
	})
}

# DRV040: a managed GPU node's GPU is one the driver it gets does not
# drive: a pre-Turing GPU (Maxwell, Pascal, Volta) on a branch after R580,
# a Blackwell GPU before R570, or a GPU under the version its platform
# support names (rego/data/compat.json, each row cited). The driver pod
# loads, finds no GPU it supports, and the node has no usable GPU.
package drvcheck.rules.drv040

import data.drvcheck.lib

meta := {
	"id": "DRV040",
	"title": "gpu-unsupported-by-driver",
	"severity": "error",
	"help": "Each driver branch drives a range of GPU generations: R580 is the last for Maxwell, Pascal and Volta, Blackwell needs R570 or later, and some GPUs need a newer build (HGX B200: 570.133.20; RTX PRO 6000 Blackwell Server Edition: 575.57.08). The GPU is read from GPU Feature Discovery's labels (nvidia.com/gpu.compute.major/minor, nvidia.com/gpu.product); a node GFD has not labelled yet is not judged. Give these nodes a driver that supports them: an NVIDIADriver of their own, or another version.",
	"needs": ["nodes"],
}

findings contains f if {
	# The labelled nodes first, straight from the input: each rule is its
	# own query, and lib.managed_gpu_nodes would be built anew for it.
	some node in input.nodes
	lib.gpu_labelled(node)
	lib.managed_gpu_node(node)
	v := node.image.version
	lib.numeric_version(v)
	some why in unsupported(lib.gpu_kind(node), v)
	f := lib.finding(meta, node.object, {
		"node": node.name,
		"message": sprintf("%s has %s, which driver %s does not support: %s", [node.name, lib.gpu_name(node), v, why]),
		"field": sprintf("/metadata/labels/%s", [replace(data.drvcheck.compat.gfd.compute_major, "/", "~1")]),
	})
}

# unsupported(kind, v) are the reasons driver v does not drive a GPU of
# kind (lib.gpu_kind): judged once per kind and version, as OPA keeps a
# function's result by its arguments, not once for each of a fleet's
# thousands of nodes.
unsupported(kind, v) := too_new(archs, v) | too_old(archs, v) | too_old_for_product(products, v, too_old(archs, v)) if {
	archs := [arch | arch := lib.kind_architecture(kind)]
	products := [p | p := lib.kind_product(kind)]
}

too_new(archs, v) := {sprintf("R%d is the last branch for %s", [arch.last_branch, arch.name]) |
	some arch in archs
	lib.driver_branch(v) > arch.last_branch
}

too_old(archs, v) := {sprintf("%s needs R%d or later", [arch.name, arch.first_branch]) |
	some arch in archs
	lib.driver_branch(v) < arch.first_branch
}

# A product's own floor, unless its generation's branch floor already
# says more.
too_old_for_product(products, v, older) := {sprintf("%s needs %s or later", [p.name, p.min_version]) |
	count(older) == 0
	some p in products
	lib.version_below(v, p.min_version)
}

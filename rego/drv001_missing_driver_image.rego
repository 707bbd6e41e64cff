# DRV001: a GPU node's precompiled driver image tag is in none of the
# configured sources (support-matrix rows, registry tags). Without a source
# configured the rule cannot judge and stays silent; drvcheck says so.
package drvcheck.rules.drv001

import data.drvcheck.lib

meta := {
	"id": "DRV001",
	"title": "missing-driver-image",
	"severity": "error",
	"help": "The GPU Operator pulls <driver-branch>-<kernel>-<os-tag> for this node (with an operator profile: exactly the image its ClusterPolicy or NVIDIADriver composes, e.g. <version>-<os-tag> when not precompiled). The tag is in no configured support matrix or registry, so the driver Pod on this node would fail with ImagePullBackOff. Build and push the image (or add the row) before the node or its kernel rolls out. Where the image is NVIDIA's public one, its build matrix (rego/data/precompiled.json) tells a tag NVIDIA never builds (an OS, branch, kernel series or flavour it does not build for) from one not published yet, and an arm64 node whose tag exists for amd64 only (one multi-arch index per tag): then change the configuration (usePrecompiled: false) rather than wait.",
	"needs": ["catalog", "nodes"],
	# plan --all reads its findings: the node whose image is missing or unknown stalls there
	"rollout": true,
}

# image.checked holds only with a tag and a source to look in; without a
# source the rule cannot judge and stays silent (drvcheck says so, from
# meta.needs). The finding points at the label of the part of the tag no
# source has (image.field): the kernel label after a kernel bump.
findings contains f if {
	some node in lib.managed_gpu_nodes
	node.image.checked
	not node.image.present
	f := lib.finding(meta, node.object, {
		"node": node.name,
		"tag": missing_tag(node),
		"message": message(node),
		"field": node.image.field,
		"image": "missing",
		"fix": fix(node),
		"stalls": lib.stalls(node.name, "image"),
	})
}

# A tag that exists is one multi-arch index: NVIDIA's build matrix says
# whether it holds the node's architecture (rego/data/precompiled.json).
findings contains f if {
	some node in lib.managed_gpu_nodes
	node.image.checked
	node.image.present
	why := lib.not_built_for_arch(node)
	f := lib.finding(meta, node.object, {
		"node": node.name,
		"tag": node.tag,
		"message": sprintf("%s exists, but not for %s, which is %s: %s", [image_name(node), node.name, node.arch, why]),
		"field": "/metadata/labels/kubernetes.io~1arch",
		"image": "missing",
		"fix": "set usePrecompiled: false (the driver is then compiled on the node), or build and push your own precompiled image for it",
		"stalls": lib.stalls(node.name, "image"),
	})
}

# The driver pod's other images (the driver manager, GDS, GDRCopy): each
# is looked for only in the sources that list its repository (a registry,
# or a matrix of whole references), and the finding names which image is
# missing, so that the GDS image of gpu-operator#690 reads as such.
findings contains f if {
	some node in lib.managed_gpu_nodes
	some aux in object.get(node, ["image", "aux"], [])
	aux.checked
	not aux.present
	f := lib.finding(meta, node.object, {
		"node": node.name,
		"tag": aux.ref,
		"message": sprintf("no %s %s (%s) in %s: the driver pod on %s pulls it too", [aux.title, aux.ref, aux.field, concat(", ", aux.sources_listed), node.name]),
		"image": "missing",
		"fix": sprintf("push %s, or set %s to a version that exists", [aux.ref, aux.field]),
		"stalls": lib.stalls(node.name, "image"),
	})
}

# An image of the driver pod the operator refuses to compose (a partial
# repository/image/version, a reference that does not parse): the driver
# DaemonSet is not rendered, or its pods fail with InvalidImageName.
findings contains f if {
	some node in lib.managed_gpu_nodes
	some aux in object.get(node, ["image", "aux"], [])
	object.get(aux, "refused", false)
	f := lib.finding(meta, node.object, {
		"node": node.name,
		"message": sprintf("the %s of %s cannot be pulled: %s", [aux.title, node.name, aux.unresolved]),
		"image": "unknown",
		"fix": sprintf("set repository, image and version of %s together", [aux.field]),
	})
}

# A node whose image the inputs cannot give (a ClusterPolicy that leaves
# it to the operator's DRIVER_IMAGE environment, values that leave the
# version to the chart's default): its image cannot be shown to exist, so
# it is not a pass; audit fails naming it.
findings contains f if {
	input.catalog.configured
	some node in lib.managed_gpu_nodes
	object.get(node, ["image", "unresolved"], "") != ""
	f := lib.finding(meta, node.object, {
		"node": node.name,
		"message": sprintf("the driver image of %s cannot be known from the inputs: %s", [node.name, node.image.unresolved]),
		"image": "unknown",
		"fix": "give --driver-image (the operator's DRIVER_IMAGE) or --driver-version",
	})
}

# newest says where the node's kernel stands against the newest one of its
# line (branch, OS, series, flavour) the sources have a tag for: newer,
# the tag is not published yet (NVIDIA builds a kernel's image days after
# its release); older, the node could move to that kernel.
newest(node) := sprintf("not published yet: the newest %s kernel with a %s tag for %s is %s; hold the node's kernel there, or wait", [n.flavour, n.branch, n.os_tag, n.kernel]) if {
	n := node.image.newest
	n.node_newer
} else := sprintf("the sources have %s, a newer %s kernel with a %s tag for %s: move the node's kernel to it", [n.kernel, n.flavour, n.branch, n.os_tag]) if {
	n := node.image.newest
	not n.node_newer
}

image_kind(node) := "precompiled driver image" if {
	object.get(node, ["image", "precompiled"], true)
} else := "driver image"

# image_name is the whole reference under an operator profile, the tag in
# the lab's model.
image_name(node) := node.image.ref if {
	object.get(node, ["image", "ref"], "") != ""
} else := node.tag

fix(node) := "set usePrecompiled: false (the driver is then compiled on the node), or build and push your own precompiled image" if {
	lib.not_built(node)
} else := sprintf("push %s, or add the row %s to a support matrix with the header tag", [node.image.ref, node.tag]) if {
	object.get(node, ["image", "ref"], "") != ""
} else := sprintf("build and push %s, or add the row %s,%s,%s to the support matrix", [node.tag, node.branch, node.kernel, node.os_tag])

# missing_tag is the tag found missing: the node's own, or (worst case
# first) another OS tag one ClusterPolicy may give it.
missing_tag(node) := node.image.missing if {
	object.get(node, ["image", "missing"], "") != ""
} else := node.tag

message(node) := sprintf("no %s %s in %s: %s", [image_kind(node), image_name(node), input.catalog.description, lib.not_built(node)]) if {
	missing_tag(node) == node.tag
} else := sprintf("no %s %s in %s: %s", [image_kind(node), image_name(node), input.catalog.description, newest(node)]) if {
	missing_tag(node) == node.tag
} else := sprintf("no %s %s in %s", [image_kind(node), image_name(node), input.catalog.description]) if {
	missing_tag(node) == node.tag
} else := sprintf(
	"no driver image %s:%s in %s, which this node may pull: one ClusterPolicy gives every node the OS tag of one arbitrary GPU node (DRV004)",
	[node.image.repository, missing_tag(node), input.catalog.description],
)

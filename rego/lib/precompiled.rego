# Whether NVIDIA builds the public precompiled image a node needs, from
# data.drvcheck.precompiled (rego/data/precompiled.json: NVIDIA's build
# matrix at a pinned commit). A tag that NVIDIA never builds is a
# configuration to change; one it builds may only lag behind a new kernel.
package drvcheck.lib

# not_built(node) says why NVIDIA builds no public precompiled image for
# the node; undefined when it does, or when the node's image is not a
# precompiled one from NVIDIA's repository (a registry of one's own builds
# what it likes), or the node's kernel is not of Ubuntu's form.
not_built(node) := why if {
	nvidia_precompiled(node)
	reasons := build_gaps(node)
	count(reasons) > 0
	why := reasons[0]
}

# not_built_for_arch(node) says why a tag that exists has no image for the
# node's architecture: a tag is one multi-arch index. The registry's index
# says so when it was read (image.platforms); else NVIDIA's build matrix
# does, for its own repository.
not_built_for_arch(node) := sprintf("it is built for %s only, no %s image, and the pull fails with \"no matching manifest\"", [concat(", ", node.image.platforms), node.arch]) if {
	is_array(object.get(node, ["image", "platforms"], null))
	not node.arch in node.image.platforms
} else := why if {
	object.get(node, ["image", "platforms"], null) == null
	nvidia_precompiled(node)
	some why in [r | r := gap(node, "arch")]
}

nvidia_precompiled(node) if {
	object.get(node, ["image", "precompiled"], false)
	object.get(node, ["image", "repository"], "") == data.drvcheck.precompiled.repository
}

# Each check gives one reason at most (an else chain): two that hold at
# once (arm64 on 22.04 with azure-fde) would otherwise conflict.

# build_gaps are the reasons, most lasting first: the OS and the kernel
# flavour are never built (GKE's, gpu-operator#1220), a kernel series or
# a branch may come or go with NVIDIA's matrix, the architecture last.
build_gaps(node) := [r |
	some check in ["os", "flavour", "series", "branch", "arch"]
	r := gap(node, check)
]

gap(node, "os") := sprintf("NVIDIA builds no precompiled driver for %s (it builds %s)", [node.os_tag, concat(", ", sort(object.keys(data.drvcheck.precompiled.os_tags)))]) if {
	node.os_tag != ""
	not data.drvcheck.precompiled.os_tags[node.os_tag]
}

gap(node, "branch") := sprintf("NVIDIA builds no precompiled %s driver for %s (it builds %s)", [branch, node.os_tag, concat(", ", branches)]) if {
	build := data.drvcheck.precompiled.os_tags[node.os_tag]
	branch := precompiled_branch(node)
	branches := object.get(build, "branches", data.drvcheck.precompiled.branches)
	not branch in branches
}

gap(node, "series") := sprintf("NVIDIA builds no precompiled driver for the %s kernels on %s (it builds %s)", [node.kernel_series, node.os_tag, concat(", ", build.series)]) if {
	build := data.drvcheck.precompiled.os_tags[node.os_tag]
	object.get(node, "kernel_series", "") != ""
	not node.kernel_series in build.series
}

gap(node, "flavour") := sprintf("NVIDIA builds no precompiled driver for the %s kernel flavour (it builds %s)", [node.kernel_flavour, concat(", ", data.drvcheck.precompiled.flavours)]) if {
	data.drvcheck.precompiled.os_tags[node.os_tag]
	object.get(node, "kernel_flavour", "") != ""
	not node.kernel_flavour in data.drvcheck.precompiled.flavours
} else := sprintf("NVIDIA builds no precompiled driver for the %s kernel flavour on %s", [node.kernel_flavour, node.os_tag]) if {
	some x in data.drvcheck.precompiled.excluded_flavours
	x.os_tag == node.os_tag
	x.flavour == object.get(node, "kernel_flavour", "")
}

gap(node, "arch") := sprintf("NVIDIA builds its precompiled images for %s for %s only, not for %s: the tag has no %s image, and the pull fails with \"no matching manifest\"", [node.os_tag, concat(", ", build.arches), node.arch, node.arch]) if {
	build := data.drvcheck.precompiled.os_tags[node.os_tag]
	object.get(node, "arch", "") != ""
	not node.arch in build.arches
} else := sprintf("NVIDIA builds no %s precompiled image for the %s kernel flavour: the pull fails with \"no matching manifest\"", [node.arch, node.kernel_flavour]) if {
	some x in data.drvcheck.precompiled.excluded_flavours
	x.arch == object.get(node, "arch", "")
	x.flavour == object.get(node, "kernel_flavour", "")
}

# precompiled_branch is the branch of the node's precompiled image: its
# version's first part (a full version names one too; DRV003 says more).
precompiled_branch(node) := split(node.image.version, ".")[0]

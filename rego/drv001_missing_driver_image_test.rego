package drvcheck.rules.drv001_test

import data.drvcheck.rules.drv001

lab := data.drvcheck.testdata.lab

# The lab as drvcheck input prints it: lab-node-3 runs a kernel (6.8.0-52)
# that no row of the support matrix has for its branch and OS.
test_lab_node_3_lacks_its_image if {
	fs := drv001.findings with input as lab
	count(fs) == 1
	some f in fs
	f.rule == "DRV001"
	f.severity == "error"
	f.object == {"kind": "Node", "namespace": "", "name": "lab-node-3"}
	f.node == "lab-node-3"
	f.tag == "550-6.8.0-52-generic-ubuntu24.04"
	f.message == "no precompiled driver image 550-6.8.0-52-generic-ubuntu24.04 in testdata/lab/support-matrix.csv: not published yet: the newest generic kernel with a 550 tag for ubuntu24.04 is 6.8.0-45-generic; hold the node's kernel there, or wait"
	f.field == "/metadata/labels/feature.node.kubernetes.io~1kernel-version.full"
	f.image == "missing"
	f.fix == "build and push 550-6.8.0-52-generic-ubuntu24.04, or add the row 550,6.8.0-52-generic,ubuntu24.04 to the support matrix"
	f.stalls == []
}

# The lab with lab-node-3's row added to the matrix: every image exists.
test_present_image_is_no_finding if {
	nodes := [object.union(n, {"image": {"checked": true, "present": true, "field": ""}}) | some n in lab.nodes]
	count(drv001.findings) == 0 with input as object.union(lab, {"nodes": nodes})
}

test_no_source_no_finding if {
	nodes := [object.union(n, {"image": {"checked": false, "present": false, "field": ""}}) | some n in lab.nodes]
	count(drv001.findings) == 0 with input as object.union(lab, {"catalog": {"configured": false}, "nodes": nodes})
}

test_non_gpu_node_is_not_audited if {
	nodes := [object.union(n, {"gpu": false}) | some n in lab.nodes]
	count(drv001.findings) == 0 with input as object.union(lab, {"nodes": nodes})
}

# A node whose upgrade waits for its driver pod to restart is held by the
# missing image: status shows this finding as the reason.
test_missing_image_stalls_a_restarting_node if {
	nodes := [object.union(n, {"upgrade_state": "pod-restart-required"}) | some n in lab.nodes]
	some f in drv001.findings with input as object.union(lab, {"nodes": nodes})
	f.stalls == ["lab-node-3"]
}

# A node whose image the operator takes from its environment, which the
# inputs do not hold: an error that audit cannot pass.
test_an_image_the_inputs_cannot_give if {
	node := {"name": "n", "gpu": true, "object": {"kind": "Node", "namespace": "", "name": "n"},
		"image": {"managed": true, "checked": false, "unresolved": "ClusterPolicy/p sets none of repository, image and version"}}
	fs := drv001.findings with input as {"nodes": [node], "catalog": {"configured": true, "description": "m.csv"}}
	count(fs) == 1
	some f in fs
	f.image == "unknown"
	contains(f.message, "cannot be known from the inputs: ClusterPolicy/p sets none")
}

# What NVIDIA builds (rego/data/precompiled.json, gpu-driver-container
# 444814c): arm64 only for ubuntu24.04, its six kernel flavours, 580 and 595.
# A GH200 node is arm64 (its Grace CPU: an ARM Neoverse-V2, as a CoreWeave
# probe reports in marin-community/marin#5446); the rest of the node is
# made up to the rule's needs.
gh200(os_tag, kernel, flavour, present) := {
	"name": "gh200-0", "gpu": true, "object": {"kind": "Node", "namespace": "", "name": "gh200-0"},
	"arch": "arm64", "os_tag": os_tag, "kernel": kernel, "kernel_series": "6.8", "kernel_flavour": flavour,
	"tag": sprintf("580-%s-%s", [kernel, os_tag]), "branch": "580",
	"image": {"managed": true, "checked": true, "present": present, "precompiled": true, "version": "580",
		"repository": "nvcr.io/nvidia/driver", "ref": sprintf("nvcr.io/nvidia/driver:580-%s-%s", [kernel, os_tag]), "field": ""},
}

catalog := {"configured": true, "description": "registry nvcr.io/nvidia/driver"}

test_arm64_node_on_ubuntu22_04 if {
	fs := drv001.findings with input as {"nodes": [gh200("ubuntu22.04", "6.8.0-1015-nvidia", "nvidia", true)], "catalog": catalog}
	count(fs) == 1
	some f in fs
	f.image == "missing"
	f.message == "nvcr.io/nvidia/driver:580-6.8.0-1015-nvidia-ubuntu22.04 exists, but not for gh200-0, which is arm64: NVIDIA builds its precompiled images for ubuntu22.04 for amd64 only, not for arm64: the tag has no arm64 image, and the pull fails with \"no matching manifest\""
	f.field == "/metadata/labels/kubernetes.io~1arch"
}

test_arm64_node_on_ubuntu24_04 if {
	count(drv001.findings) == 0 with input as {"nodes": [gh200("ubuntu24.04", "6.8.0-1015-nvidia", "nvidia", true)], "catalog": catalog}
}

# A registry of one's own builds what it likes.
test_own_repository_is_not_judged_by_nvidias_builds if {
	node := json.patch(gh200("ubuntu22.04", "6.8.0-1015-nvidia", "nvidia", true), [{"op": "replace", "path": "/image/repository", "value": "registry.corp/driver"}])
	count(drv001.findings) == 0 with input as {"nodes": [node], "catalog": catalog}
}

# GKE's kernels are never built (gpu-operator#1726): the missing tag says
# so, and the fix is the configuration, not waiting.
test_missing_tag_names_what_nvidia_never_builds if {
	node := json.patch(gh200("ubuntu24.04", "6.8.0-1012-gke", "gke", false), [{"op": "replace", "path": "/arch", "value": "amd64"}])
	fs := drv001.findings with input as {"nodes": [node], "catalog": catalog}
	count(fs) == 1
	some f in fs
	f.message == "no precompiled driver image nvcr.io/nvidia/driver:580-6.8.0-1012-gke-ubuntu24.04 in registry nvcr.io/nvidia/driver: NVIDIA builds no precompiled driver for the gke kernel flavour (it builds aws, azure, azure-fde, generic, nvidia, oracle)"
	startswith(f.fix, "set usePrecompiled: false")
}

# A generic kernel NVIDIA builds for: missing means not published yet.
test_missing_tag_of_a_built_flavour if {
	node := json.patch(gh200("ubuntu24.04", "6.8.0-99-generic", "generic", false), [{"op": "replace", "path": "/arch", "value": "amd64"}])
	some f in drv001.findings with input as {"nodes": [node], "catalog": catalog}
	f.message == "no precompiled driver image nvcr.io/nvidia/driver:580-6.8.0-99-generic-ubuntu24.04 in registry nvcr.io/nvidia/driver"
}

# The registry's index, when read, is the answer: it may hold arm64 where
# the build matrix says none (a registry of one's own), or lack it.
test_arm64_against_the_registrys_index if {
	node := gh200("ubuntu24.04", "6.8.0-1015-nvidia", "nvidia", true)
	amd64_only := json.patch(node, [{"op": "add", "path": "/image/platforms", "value": ["amd64"]}])
	some f in drv001.findings with input as {"nodes": [amd64_only], "catalog": catalog}
	f.message == "nvcr.io/nvidia/driver:580-6.8.0-1015-nvidia-ubuntu24.04 exists, but not for gh200-0, which is arm64: it is built for amd64 only, no arm64 image, and the pull fails with \"no matching manifest\""
	both := json.patch(gh200("ubuntu22.04", "6.8.0-1015-nvidia", "nvidia", true), [{"op": "add", "path": "/image/platforms", "value": ["amd64", "arm64"]}])
	count(drv001.findings) == 0 with input as {"nodes": [both], "catalog": catalog}
}

# A node on an older kernel than the newest its line has a tag for could
# move there: the message says so (#682: -100 missing while -97 and later
# were published).
test_missing_tag_of_an_older_kernel if {
	node := json.patch(gh200("ubuntu22.04", "5.15.0-100-generic", "generic", false), [
		{"op": "replace", "path": "/arch", "value": "amd64"},
		{"op": "replace", "path": "/kernel_series", "value": "5.15"},
		{"op": "add", "path": "/image/newest", "value": {"kernel": "5.15.0-119-generic", "node_newer": false, "branch": "580", "os_tag": "ubuntu22.04", "flavour": "generic"}},
	])
	some f in drv001.findings with input as {"nodes": [node], "catalog": catalog}
	f.message == "no precompiled driver image nvcr.io/nvidia/driver:580-5.15.0-100-generic-ubuntu22.04 in registry nvcr.io/nvidia/driver: the sources have 5.15.0-119-generic, a newer generic kernel with a 580 tag for ubuntu22.04: move the node's kernel to it"
}

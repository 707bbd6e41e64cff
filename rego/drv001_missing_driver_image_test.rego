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
	f.message == "no precompiled driver image 550-6.8.0-52-generic-ubuntu24.04 in testdata/lab/support-matrix.csv"
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

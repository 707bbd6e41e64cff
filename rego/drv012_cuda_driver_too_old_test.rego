package drvcheck.rules.drv012_test

import data.drvcheck.rules.drv012

image := "nvcr.io/nvidia/cuda:13.0.0-base-ubuntu24.04"

image_field := ["spec", "template", "spec", "containers", 0, "image"]

cuda(extra) := object.union(
	{
		"floor": 580, "origin": "image", "image": image, "cuda": "13.0.0", "compat": "minor", "error": "",
		"detail": sprintf("image %s: CUDA 13.0.0 from the image tag, minor-version compatibility", [image]),
		"field": image_field, "older_count": 0, "older_nodes": [],
	},
	extra,
)

workload(c) := {
	"object": {"kind": "Deployment", "namespace": "ml", "name": "cuda13"},
	"owned": false,
	"cuda": c,
}

test_floor_above_an_admitted_node_is_a_finding if {
	fs := drv012.findings with input as {"workloads": [workload(cuda({
		"older_count": 1,
		"older_nodes": [{"name": "gpu-570", "branch": 570}],
	}))]}
	count(fs) == 1
	some f in fs
	f.rule == "DRV012"
	f.severity == "error"
	f.title == "cuda-driver-too-old"
	f.node == "gpu-570"
	f.field == image_field
	f.message == sprintf("needs driver branch >= 580 (image %s: CUDA 13.0.0 from the image tag, minor-version compatibility) but its affinity admits GPU node gpu-570 with branch 570", [image])
}

test_many_older_nodes_are_counted if {
	fs := drv012.findings with input as {"workloads": [workload(cuda({
		"older_count": 12,
		"older_nodes": [{"name": "a", "branch": 550}, {"name": "b", "branch": 570}],
	}))]}
	some f in fs
	endswith(f.message, "admits 12 GPU nodes with an older branch: a (550), b (570) and 10 more")
}

test_no_older_node_no_finding if {
	count(drv012.findings) == 0 with input as {"workloads": [workload(cuda({}))]}
}

test_unknown_floor_no_finding if {
	count(drv012.findings) == 0 with input as {"workloads": [workload(cuda({
		"floor": 0, "older_count": 0,
	}))]}
}

test_bad_annotation_is_a_finding if {
	msg := "annotation drvcheck.io/min-driver-branch on the Deployment: \"r580\" is not a driver branch (want e.g. 580 or 580.65.06)"
	fs := drv012.findings with input as {"workloads": [workload(cuda({
		"floor": 0, "origin": "annotation", "error": msg,
		"field": "/metadata/annotations/drvcheck.io~1min-driver-branch",
	}))]}
	count(fs) == 1
	some f in fs
	f.message == msg
	f.field == "/metadata/annotations/drvcheck.io~1min-driver-branch"
}

package drvcheck.rules.drv006_test

import data.drvcheck.rules.drv006

node(os) := {
	"name": "n", "gpu": true, "os_id": os, "object": {"kind": "Node", "namespace": "", "name": "n"},
	"image": {"managed": true, "ref": sprintf("nvcr.io/nvidia/driver:550.90.07-%s12", [os])},
}

test_talos_is_a_warning if {
	fs := drv006.findings with input as {"operator": {"profile": true}, "nodes": [node("talos")]}
	count(fs) == 1
	some f in fs
	f.severity == "warning"
	contains(f.message, "runs talos")
	contains(f.message, "nvcr.io/nvidia/driver:550.90.07-talos12")
}

test_ubuntu_is_supported if {
	count(drv006.findings) == 0 with input as {"operator": {"profile": true}, "nodes": [node("ubuntu")]}
}

test_without_profile_the_lab_model_holds if {
	count(drv006.findings) == 0 with input as {"operator": {"profile": false}, "nodes": [node("talos")]}
}

test_unmanaged_node_is_ignored if {
	n := object.union(node("debian"), {"image": {"managed": false, "ref": ""}})
	count(drv006.findings) == 0 with input as {"operator": {"profile": true}, "nodes": [n]}
}

# An OS NVIDIA publishes no images for, whose image a source holds (one's
# own build, as Garden Linux's installer pushes): no warning.
test_an_os_with_images_in_the_sources if {
	node := {"name": "g", "gpu": true, "os_id": "gardenlinux", "object": {"kind": "Node", "namespace": "", "name": "g"},
		"image": {"managed": true, "os_tag": "gardenlinux0", "ref": "r/driver:590-k-gardenlinux0"}}
	count(drv006.findings) == 0 with input as {"operator": {"profile": true, "listed_os_tags": ["gardenlinux0"]}, "nodes": [node]}
	count(drv006.findings) == 1 with input as {"operator": {"profile": true, "listed_os_tags": []}, "nodes": [node]}
}

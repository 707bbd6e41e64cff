package acme_test

import data.drvcheck.rules.acme001

nodes := [
	{"name": "a", "gpu": true, "kernel": "5.15.0-119-generic", "object": {"kind": "Node", "namespace": "", "name": "a"}},
	{"name": "b", "gpu": true, "kernel": "6.8.0-52-generic", "object": {"kind": "Node", "namespace": "", "name": "b"}},
	{"name": "c", "gpu": false, "kernel": "4.0", "object": {"kind": "Node", "namespace": "", "name": "c"}},
]

test_unapproved_kernel_is_reported if {
	fs := acme001.findings with input.nodes as nodes with data.acme.kernels as ["5.15.0-119-generic"]
	count(fs) == 1
	some f in fs
	f.node == "b"
	f.rule == "ACME001"
}

test_non_gpu_nodes_are_ignored if {
	fs := acme001.findings with input.nodes as nodes with data.acme.kernels as ["5.15.0-119-generic", "6.8.0-52-generic"]
	count(fs) == 0
}

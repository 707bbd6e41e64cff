package drvcheck.rules.drv023_test

import data.drvcheck.rules.drv023

lab := data.drvcheck.testdata.lab

# In the lab, cuda12-job is a bare Pod on lab-node-0: its drain needs
# --force. The finding is on the Pod, pointing where an owner would be named.
test_lab_bare_pod_needs_force if {
	fs := drv023.findings with input as lab
	count(fs) == 1
	some f in fs
	f.object == {"kind": "Pod", "namespace": "gpu-drv", "name": "cuda12-job"}
	f.node == "lab-node-0"
	f.severity == "warning"
	f.field == "/metadata/ownerReferences"
	f.message == "draining lab-node-0 needs --force for gpu-drv/cuda12-job (no controller: deleted for good)"
}

node(name) := {"name": name, "gpu": true, "object": {"kind": "Node", "namespace": "", "name": name}}

pod(name, field) := {
	"pod": sprintf("default/%s", [name]),
	"workload": {"kind": "Pod", "namespace": "default", "name": name},
	"field": field,
}

replica(i) := {
	"pod": sprintf("default/web-%d", [i]),
	"workload": {"kind": "Deployment", "namespace": "default", "name": "web"},
	"field": "/spec/template/spec/volumes/0/emptyDir",
}

test_both_flags_on_one_pod if {
	fs := drv023.findings with input as {
		"nodes": [node("n")],
		"drain": {"n": {
			"needs_force": [pod("a", "/metadata/ownerReferences")],
			"needs_delete_emptydir": [pod("a", "/spec/volumes/0/emptyDir")],
		}},
	}
	count(fs) == 1
	some f in fs
	f.message == "draining n needs --force for default/a (no controller: deleted for good), and --delete-emptydir-data for default/a (emptyDir data is lost)"
	f.field == "/metadata/ownerReferences"
}

# Two replicas of one Deployment on the node: one finding, on the
# Deployment, at its emptyDir volume.
test_replicas_make_one_finding_on_their_workload if {
	fs := drv023.findings with input as {
		"nodes": [node("n")],
		"drain": {"n": {"needs_force": [], "needs_delete_emptydir": [replica(0), replica(1)]}},
	}
	count(fs) == 1
	some f in fs
	f.object.kind == "Deployment"
	f.field == "/spec/template/spec/volumes/0/emptyDir"
	f.message == "draining n needs --delete-emptydir-data for default/web-0, default/web-1 (emptyDir data is lost)"
}

test_non_gpu_node_is_not_checked if {
	n := object.union(node("cpu"), {"gpu": false})
	count(drv023.findings) == 0 with input as {"nodes": [n], "drain": {"cpu": {"needs_force": [pod("a", "")], "needs_delete_emptydir": []}}}
}

test_a_node_draining_is_held_by_it if {
	n := object.union(node("n"), {"upgrade_state": "drain-required"})
	some f in drv023.findings with input as {"nodes": [n], "drain": {"n": {"needs_force": [pod("a", "")], "needs_delete_emptydir": []}}}
	f.stalls == ["n"]
}

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

# With an operator profile: GPU pods that pod deletion cannot remove are
# DRV025's; the drain fallback's pods name it; others only a manual drain.
operator_doc(upgrade_node) := {
	"nodes": [{"name": "g1", "gpu": true, "upgrade_state": "drain-required", "object": {"kind": "Node", "namespace": "", "name": "g1"}}],
	"drain": {"g1": {
		"needs_force": [
			{"pod": "ml/notebook", "workload": {"kind": "Pod", "namespace": "ml", "name": "notebook"}, "field": "/metadata/ownerReferences"},
			{"pod": "ml/debug", "workload": {"kind": "Pod", "namespace": "ml", "name": "debug"}, "field": "/metadata/ownerReferences"},
		],
		"needs_delete_emptydir": [],
	}},
	"upgrade": {"operator": true, "scopes": [], "nodes": {"g1": upgrade_node}},
}

test_operator_wording if {
	fs := drv023.findings with input as operator_doc({
		"scope": "s", "auto_upgrade": true,
		"not_deletable": [{"pod": "ml/notebook"}],
		"drain_needs_force": [],
		"drain_needs_emptydir": [],
	})
	count(fs) == 1
	some f in fs
	f.object.name == "debug"
	f.message == "a manual kubectl drain of g1 needs --force for ml/debug (no controller: deleted for good); the GPU Operator's upgrade does not remove them"
	f.stalls == []
}

test_operator_drain_fallback if {
	fs := drv023.findings with input as operator_doc({
		"scope": "s", "auto_upgrade": true, "not_deletable": [],
		"drain_needs_force": [{"pod": "ml/debug"}],
		"drain_needs_emptydir": [],
	})
	count(fs) == 2
	some f in fs
	f.object.name == "debug"
	startswith(f.message, "the GPU Operator's drain fallback on g1 needs --force for ml/debug")
	f.stalls == ["g1"]
}

package drvcheck.rules.drv032_test

import data.drvcheck.rules.drv032

scope(max_unavailable, parallel) := {
	"name": "every managed node", "max_unavailable": max_unavailable,
	"policy": {"auto_upgrade": true, "max_parallel_upgrades": parallel},
}

# vllm-deployment.yaml: 4 pods of one GPU on 4 nodes of one GPU; 3 fit
# with one node out.
vllm := {
	"object": {"kind": "Deployment", "namespace": "default", "name": "mistral-7b"}, "owned": false,
	"rollout_room": {"pods": 4, "requests": {"nvidia.com/gpu": 1}, "admitted": 4, "holds": 4, "out": 1, "held": 3, "others": [],
		"field": "/spec/template/spec/containers/0/resources"},
}

test_one_node_out_leaves_a_pod_pending if {
	fs := drv032.findings with input as {"workloads": [vllm], "upgrade": {"scopes": [scope(1, 1)]}}
	count(fs) == 1
	some f in fs
	f.rule == "DRV032"
	f.severity == "warning"
	f.message == "the driver rollout takes up to 1 of their 4 admitted node(s) out at once (every managed node: maxUnavailable 1, maxParallelUpgrades 1); its replicas ask for 1 nvidia.com/gpu each, 4 pod(s) in all, which those nodes hold (room for 4), but without the 1 that hold the most, 3 fit: 1 wait Pending until the nodes return"
	f.field == "/spec/template/spec/containers/0/resources"
}

test_room_for_the_window_is_no_finding if {
	room := object.union(vllm, {"rollout_room": object.union(vllm.rollout_room, {"holds": 5, "held": 4})})
	count(drv032.findings) == 0 with input as {"workloads": [room], "upgrade": {"scopes": [scope(1, 1)]}}
}

test_others_of_the_group_are_named if {
	group := object.union(vllm, {"rollout_room": object.union(vllm.rollout_room, {"others": [{"kind": "Deployment", "namespace": "default", "name": "llama"}]})})
	some f in drv032.findings with input as {"workloads": [group], "upgrade": {"scopes": [scope(1, 1)]}}
	contains(f.message, "its replicas and those of 1 other workload(s) of the same constraints (Deployment/default/llama)")
}

test_an_owned_template_is_not_reported if {
	owned := object.union(vllm, {"owned": true})
	count(drv032.findings) == 0 with input as {"workloads": [owned], "upgrade": {"scopes": [scope(1, 1)]}}
}

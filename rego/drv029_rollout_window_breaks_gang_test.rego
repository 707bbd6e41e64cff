package drvcheck.rules.drv029_test

import data.drvcheck.rules.drv029

scope(max_unavailable, parallel) := {
	"name": "every managed node", "max_unavailable": max_unavailable,
	"policy": {"auto_upgrade": true, "max_parallel_upgrades": parallel},
}

# The LeaderWorkerSet of lws-vllm.yaml with a fourth node: 4 pods of 8
# GPUs fit 4 nodes of 8, 3 with one node out.
lws := {
	"object": {"kind": "LeaderWorkerSet", "namespace": "default", "name": "vllm"}, "owned": false,
	"gang": {"pods": 4, "must": 4, "placed": 4, "admitted": 4, "judged": true, "fits": true, "rollout": {"out": 1, "placed": 3},
		"why": "a LeaderWorkerSet's groups each run leader and workers together", "field": "/spec/leaderWorkerTemplate/leaderTemplate/spec/containers/0/resources"},
}

test_one_node_out_breaks_a_gang_that_fills_the_pool if {
	fs := drv029.findings with input as {"workloads": [lws], "upgrade": {"scopes": [scope(1, 1)]}}
	count(fs) == 1
	some f in fs
	f.rule == "DRV029"
	f.severity == "warning"
	f.message == "the driver rollout takes up to 1 of its 4 admitted node(s) out at once (every managed node: maxUnavailable 1, maxParallelUpgrades 1); without those with the most room, 3 of the 4 GPU pods that must run at once fit, so it stops until they return: a LeaderWorkerSet's groups each run leader and workers together"
	f.field == "/spec/leaderWorkerTemplate/leaderTemplate/spec/containers/0/resources"
}

test_room_for_the_window_is_no_finding if {
	room := object.union(lws, {"gang": object.union(lws.gang, {"rollout": {"out": 1, "placed": 4}})})
	count(drv029.findings) == 0 with input as {"workloads": [room], "upgrade": {"scopes": [scope(1, 1)]}}
}

test_no_rollout_no_finding if {
	# Go gives a gang its rollout only under a window that takes nodes out.
	none := object.union(object.remove(lws, ["gang"]), {"gang": object.remove(lws.gang, ["rollout"])})
	count(drv029.findings) == 0 with input as {"workloads": [none], "upgrade": {"scopes": [scope(1, 1)]}}
	zero := object.union(lws, {"gang": object.union(lws.gang, {"rollout": {"out": 0, "placed": 3}})})
	count(drv029.findings) == 0 with input as {"workloads": [zero]}
}

test_an_owned_template_is_not_reported if {
	owned := object.union(lws, {"owned": true})
	count(drv029.findings) == 0 with input as {"workloads": [owned], "upgrade": {"scopes": [scope(1, 1)]}}
}

package drvcheck.rules.drv029_test

import data.drvcheck.rules.drv029

scope(max_unavailable, parallel) := {
	"name": "every managed node", "max_unavailable": max_unavailable,
	"policy": {"auto_upgrade": true, "max_parallel_upgrades": parallel},
}

# The LeaderWorkerSet of lws-vllm.yaml with a fourth node: 4 pods of 8
# GPUs fit 4 nodes of 8, 3 with one node out, 2 with two.
lws := {
	"object": {"kind": "LeaderWorkerSet", "namespace": "default", "name": "vllm"}, "owned": false,
	"gang": {"pods": 4, "must": 4, "placed": 4, "admitted": 4, "judged": true, "fits": true, "window": [3, 2, 1, 0],
		"why": "a LeaderWorkerSet's groups each run leader and workers together", "field": "/spec/leaderWorkerTemplate/leaderTemplate/spec/containers/0/resources"},
}

test_one_node_out_breaks_a_gang_that_fills_the_pool if {
	fs := drv029.findings with input as {"workloads": [lws], "upgrade": {"scopes": [scope(1, 1)]}}
	count(fs) == 1
	some f in fs
	f.rule == "DRV029"
	f.severity == "warning"
	f.message == "the driver rollout takes up to 1 node(s) out at once (every managed node: maxUnavailable 1, maxParallelUpgrades 1); without the 1 of its 4 admitted node(s) with the most room, 3 of the 4 GPU pods that must run at once fit, so it stops until they return: a LeaderWorkerSet's groups each run leader and workers together"
}

test_max_parallel_bounds_the_window if {
	room := object.union(lws, {"gang": object.union(lws.gang, {"window": [4, 3, 2, 1]})})
	count(drv029.findings) == 0 with input as {"workloads": [room], "upgrade": {"scopes": [scope(2, 1)]}}
	count(drv029.findings) == 1 with input as {"workloads": [room], "upgrade": {"scopes": [scope(2, 0)]}}
}

test_no_rollout_no_finding if {
	off := {"name": "every managed node", "max_unavailable": 1, "policy": {"auto_upgrade": false, "max_parallel_upgrades": 1}}
	count(drv029.findings) == 0 with input as {"workloads": [lws], "upgrade": {"scopes": [off]}}
	count(drv029.findings) == 0 with input as {"workloads": [lws]}
}

test_a_gang_that_never_fits_is_drv015s if {
	never := object.union(lws, {"gang": object.union(lws.gang, {"fits": false, "window": []})})
	count(drv029.findings) == 0 with input as {"workloads": [never], "upgrade": {"scopes": [scope(1, 1)]}}
}

package drvcheck.rules.drv028_test

import data.drvcheck.rules.drv028

cp := {"kind": "ClusterPolicy", "namespace": "", "name": "cluster-policy"}

scope(unavailable, limit, auto) := {
	"name": "every managed node", "object": cp, "policy_field": "/spec/driver/upgradePolicy",
	"policy": {"auto_upgrade": auto}, "managed": 4,
	"unavailable": count(unavailable), "unavailable_nodes": unavailable,
	"max_unavailable": limit, "max_unavailable_written": "25%", "untolerated": [],
}

nodes := {n: {"scope": "every managed node"} | some n in ["g0", "g1", "g2", "g3"]}

gpu_nodes := [{"name": n, "gpu": true, "upgrade_state": s} | some [n, s] in [["g0", "upgrade-required"], ["g1", ""], ["g2", "upgrade-required"], ["g3", "upgrade-done"]]]

test_one_notready_node_of_four if {
	fs := drv028.findings with input as {"nodes": gpu_nodes, "upgrade": {"operator": true, "nodes": nodes, "scopes": [scope([{"node": "g3", "why": "NotReady"}], 1, true)]}}
	count(fs) == 1
	some f in fs
	f.object == cp
	f.severity == "error"
	f.field == "/spec/driver/upgradePolicy/maxUnavailable"
	f.stalls == ["g0", "g2"]
	f.message == "no driver upgrade can start in every managed node: 1 of 4 managed node(s) are cordoned or NotReady (g3 NotReady), and maxUnavailable 25% allows 1; every node that needs an upgrade waits in upgrade-required"
}

test_room_left_or_no_rollout if {
	count(drv028.findings) == 0 with input as {"upgrade": {"operator": true, "nodes": nodes, "scopes": [scope([], 1, true)]}}
	count(drv028.findings) == 0 with input as {"upgrade": {"operator": true, "nodes": nodes, "scopes": [scope([{"node": "g3", "why": "cordoned"}], 1, false)]}}
	count(drv028.findings) == 0 with input as {"upgrade": {"operator": false, "scopes": [], "nodes": {}}}
}

test_a_driver_pod_under_an_untolerated_taint if {
	s := object.union(scope([], 1, true), {"untolerated": [{"node": "g1", "taint": "dedicated=ml:NoSchedule"}]})
	fs := drv028.findings with input as {"nodes": gpu_nodes, "upgrade": {"operator": true, "nodes": nodes, "scopes": [s]}}
	count(fs) == 1
	some f in fs
	f.object == cp
	f.stalls == ["g0", "g1", "g2", "g3"]
	startswith(f.message, "no driver upgrade can start in every managed node: the driver pod on g1 (dedicated=ml:NoSchedule) does not tolerate")
	count(drv028.findings) == 0 with input as {"nodes": gpu_nodes, "upgrade": {"operator": true, "nodes": nodes, "scopes": [object.union(s, {"policy": {"auto_upgrade": false}})]}}
}

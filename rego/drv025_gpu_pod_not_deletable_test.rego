package drvcheck.rules.drv025_test

import data.drvcheck.rules.drv025

ds := {"kind": "DaemonSet", "namespace": "mon", "name": "gpu-probe"}

bare := {"kind": "Pod", "namespace": "ml", "name": "notebook"}

entry(w, pod, reason) := {"pod": pod, "workload": w, "reason": reason, "field": "/spec/template/spec/containers/0/resources"}

rollout(drain_enabled) := {"upgrade": {
	"operator": true,
	"scopes": [{"name": "every managed node", "policy": {"drain": {"enabled": drain_enabled}}}],
	"nodes": {
		"g1": {"scope": "every managed node", "not_deletable": [entry(ds, "mon/gpu-probe-g1", "daemonset"), entry(bare, "ml/notebook", "no controller")]},
		"g2": {"scope": "every managed node", "not_deletable": [entry(ds, "mon/gpu-probe-g2", "daemonset")]},
		"g3": {"scope": "every managed node", "not_deletable": []},
	},
}}

test_one_finding_per_workload_and_reason if {
	fs := drv025.findings with input as rollout(false)
	count(fs) == 2
	some f in fs
	f.object == ds
	f.severity == "error"
	f.field == "/spec/template/spec/containers/0/resources"
	f.message == "GPU-pod deletion on g1, g2 cannot remove mon/gpu-probe-g1, mon/gpu-probe-g2: a DaemonSet pod that requests a GPU stays on the node, so the deleted pods never match the GPU pods; the phase fails at once and the node goes to upgrade-failed"
}

test_bare_pod_names_the_flag_and_the_fallback if {
	some f in drv025.findings with input as rollout(true)
	f.object == bare
	contains(f.message, "podDeletion.force")
	endswith(f.message, "goes to drain-required")
}

test_stalls_only_nodes_in_the_deletion_states if {
	doc := object.union(rollout(false), {"nodes": [
		{"name": "g1", "gpu": true, "upgrade_state": "pod-deletion-required"},
		{"name": "g2", "gpu": true, "upgrade_state": "upgrade-done"},
	]})
	some f in drv025.findings with input as doc
	f.object == ds
	f.stalls == ["g1"]
}

test_without_a_profile_nothing if {
	count(drv025.findings) == 0 with input as {"upgrade": {"operator": false, "scopes": [], "nodes": {}}}
}

test_many_nodes_are_counted if {
	nodes := {sprintf("g%d", [i]): {"scope": "s", "not_deletable": [entry(ds, sprintf("mon/p%d", [i]), "daemonset")]} | some i in numbers.range(1, 7)}
	some f in drv025.findings with input as {"upgrade": {"operator": true, "scopes": [], "nodes": nodes}}
	startswith(f.message, "GPU-pod deletion on g1, g2, g3, g4, g5 and 2 more cannot remove mon/p1, mon/p2, mon/p3, mon/p4, mon/p5 and 2 more:")
}

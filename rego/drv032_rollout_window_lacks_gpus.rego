# DRV032: replicated GPU workloads (Deployments, StatefulSets, ReplicaSets,
# ReplicationControllers, each pod on its own) whose pods fit the fleet's
# GPUs but not the fleet less the nodes the GPU Operator's driver rollout
# takes out at once. The upgrade library cordons up to maxUnavailable
# managed nodes and deletes their GPU pods (k8s-operator-libs
# pod_manager.go, SchedulePodEviction); their controllers make them again,
# and those that find no GPU wait Pending until the nodes return. Judged
# at worst, from files: the nodes out are the admitted ones that hold the
# most of them (internal/input/workload/gpufit/replicated.go).
package drvcheck.rules.drv032

import data.drvcheck.lib

meta := {
	"id": "DRV032",
	"title": "rollout-window-lacks-gpus",
	"severity": "warning",
	"help": "While the GPU Operator upgrades the driver, up to maxUnavailable nodes are out at once and their GPU pods are deleted; their controllers make them again wherever GPUs are free. When the nodes left cannot hold them all, the rest wait Pending for the window, and serve nothing. Lower the rollout's maxUnavailable or maxParallelUpgrades, keep spare GPUs in the pool, or scale the workloads down for the rollout. plan --all says which nodes each round takes out.",
	"needs": ["nodes"],
}

findings contains f if {
	some w in input.workloads
	r := w.rollout_room
	k := lib.out_at_once
	k > 0
	held := r.window[min([k, count(r.window)]) - 1]
	held < r.pods
	lib.reported(w)
	f := lib.finding(meta, w.object, {
		"message": sprintf("the driver rollout takes up to %d node(s) out at once (%s); %s ask for %s each, %d pod(s) in all, which the %d admitted node(s) hold (room for %d), but without the %d of them that hold the most, %d fit: %d wait Pending until the nodes return", [
			k, lib.window_words, workloads_words(w, r), requests_words(r.requests), r.pods, r.admitted, r.holds,
			min([k, r.admitted]), held, r.pods - held,
		]),
		"field": r.field,
	})
}

workloads_words(w, r) := sprintf("its replicas", []) if {
	count(r.others) == 0
} else := sprintf("its replicas and those of %d other workload(s) of the same constraints (%s)", [
	count(r.others), concat(", ", [sprintf("%s/%s/%s", [o.kind, o.namespace, o.name]) | some o in array.slice(r.others, 0, 3)]),
])

requests_words(reqs) := concat(", ", sort([sprintf("%d %s", [v, name]) | some name, v in reqs]))

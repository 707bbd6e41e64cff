# DRV032: replicated GPU workloads (Deployments, StatefulSets, ReplicaSets,
# ReplicationControllers, each pod on its own) whose pods fit the fleet's
# GPUs but not the fleet less the nodes the GPU Operator's driver rollout
# takes out at once. The upgrade library cordons up to maxUnavailable
# managed nodes and deletes their GPU pods (k8s-operator-libs
# pod_manager.go, SchedulePodEviction); their controllers make them again,
# and those that find no GPU wait Pending until the nodes return. Judged
# at worst, from files, in Go (rollout_room): each scope that rolls takes
# out its window of the admitted nodes it manages that hold the most of
# them (internal/input/workload/gpufit/replicated.go).
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
	r.held < r.pods
	lib.reported(w)
	f := lib.finding(meta, w.object, {
		"message": sprintf("the driver rollout takes up to %d of their %d admitted node(s) out at once (%s); %s ask for %s each, %d pod(s) in all, which those nodes hold (room for %d), but without the %d that hold the most, %d fit: %d wait Pending until the nodes return", [
			r.out, r.admitted, lib.window_words, workloads_words(w, r), requests_words(r.requests), r.pods, r.holds,
			r.out, r.held, r.pods - r.held,
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

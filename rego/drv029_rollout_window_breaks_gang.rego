# DRV029: a gang (a LeaderWorkerSet, JobSet, PyTorchJob, TrainJob or Volcano
# Job whose pods do no work until all run: internal/input/workload_gang.go)
# that fits the fleet, but not the fleet less the nodes the GPU Operator's
# driver rollout takes out at once. The upgrade library cordons up to
# maxUnavailable managed nodes, starting at most maxParallelUpgrades (0: no
# limit) at a time (k8s-operator-libs common_manager.go,
# GetUpgradesAvailable), and deletes their GPU pods: a member of the gang
# evicted there finds no room elsewhere, and the gang stops until the
# nodes return. Judged at worst, in Go (gang.rollout): each scope that
# rolls takes out its window of the admitted nodes it manages with the
# most room free; scopes roll side by side.
package drvcheck.rules.drv029

import data.drvcheck.lib

meta := {
	"id": "DRV029",
	"title": "rollout-window-breaks-gang",
	"severity": "warning",
	"help": "While the GPU Operator upgrades the driver, up to maxUnavailable nodes are out at once and their GPU pods are deleted. A gang whose pods only run together needs room for all of them on the nodes left, or it stops for the whole window. Lower the rollout's maxUnavailable or maxParallelUpgrades, keep spare GPUs in the gang's pool, or run the rollout when the gang is done.",
	"needs": ["nodes"],
	# plan --all reads its findings: the gangs no order of its own meets
	"rollout": true,
}

findings contains f if {
	some w in input.workloads
	r := w.gang.rollout # judged gangs that fit the whole fleet, under a rollout
	r.out > 0
	r.placed < w.gang.must
	lib.reported(w)
	f := lib.finding(meta, w.object, {
		"message": sprintf("the driver rollout takes up to %d of its %d admitted node(s) out at once (%s); without those with the most room, %d of the %d GPU pods that must run at once fit, so it stops until they return: %s", [
			r.out, w.gang.admitted, lib.window_words, r.placed, w.gang.must, w.gang.why,
		]),
		"field": w.gang.field,
	})
}

# DRV029: a gang (a LeaderWorkerSet, JobSet, PyTorchJob, TrainJob or Volcano
# Job whose pods do no work until all run: internal/input/workload_gang.go)
# that fits the fleet, but not the fleet less the nodes the GPU Operator's
# driver rollout takes out at once. The upgrade library cordons up to
# maxUnavailable managed nodes, starting at most maxParallelUpgrades (0: no
# limit) at a time (k8s-operator-libs common_manager.go,
# GetUpgradesAvailable), and deletes their GPU pods: a member of the gang
# evicted there finds no room elsewhere, and the gang stops until the
# nodes return. Judged at worst: the nodes out are the admitted ones with
# the most room free.
package drvcheck.rules.drv029

import data.drvcheck.lib

meta := {
	"id": "DRV029",
	"title": "rollout-window-breaks-gang",
	"severity": "warning",
	"help": "While the GPU Operator upgrades the driver, up to maxUnavailable nodes are out at once and their GPU pods are deleted. A gang whose pods only run together needs room for all of them on the nodes left, or it stops for the whole window. Lower the rollout's maxUnavailable or maxParallelUpgrades, keep spare GPUs in the gang's pool, or run the rollout when the gang is done.",
	"needs": ["nodes"],
}

findings contains f if {
	some w in input.workloads
	g := w.gang
	count(g.window) > 0 # judged gangs that fit the whole fleet
	k := lib.out_at_once
	k > 0
	placed := g.window[min([k, count(g.window)]) - 1]
	placed < g.must
	lib.reported(w)
	f := lib.finding(meta, w.object, {
		"message": sprintf("the driver rollout takes up to %d node(s) out at once (%s); without the %d of its %d admitted node(s) with the most room, %d of the %d GPU pods that must run at once fit, so it stops until they return: %s", [
			k, lib.window_words, min([k, g.admitted]), g.admitted, placed, g.must, g.why,
		]),
		"field": g.field,
	})
}

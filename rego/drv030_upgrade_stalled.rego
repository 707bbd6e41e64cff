# DRV030: a GPU node's nvidia.com/gpu-driver-upgrade-state is set and is not
# upgrade-done: the GPU Operator's driver upgrade is under way or stuck
# there. upgrade-failed is an error: the operator does not retry on its own.
# The message says where the node is and, for the drain states, which
# budget or pod holds it.
package drvcheck.rules.drv030

import data.drvcheck.lib

meta := {
	"id": "DRV030",
	"title": "upgrade-stalled",
	"severity": "warning",
	"help": "The upgrade controller moves a node through upgrade-required, cordon-required, wait-for-jobs-required, pod-deletion-required, drain-required, pod-restart-required, validation-required and uncordon-required to upgrade-done. A node that stays in one state is stalled; in the drain states the cause is usually a PodDisruptionBudget or a pod that needs force. After fixing the cause of upgrade-failed, relabel the node nvidia.com/gpu-driver-upgrade-state=upgrade-required.",
	"needs": ["nodes"],
}

findings contains f if {
	some node in lib.gpu_nodes
	state := node.upgrade_state
	state != ""
	state != data.drvcheck.upgrade.done
	f := lib.finding(meta, node.object, {
		"node": node.name,
		"severity": severity(state),
		"message": sprintf("%s is in %s and %s%s", [node.name, state, wait(state), cause(node.name, state)]),
		"field": sprintf("/metadata/labels/%s", [replace(data.drvcheck.upgrade.label, "/", "~1")]),
		"stalls": [node.name],
	})
}

severity(state) := "error" if state == data.drvcheck.upgrade.failed.name

else := meta.severity

# wait is what a node in state waits for, from the state table.
wait(state) := w if {
	w := lib.upgrade_state[state].waits
} else := "is not a state of the upgrade controller"

cause(name, state) := sprintf("; %s", [concat("; ", blockers(input.drain[name]))]) if {
	"evictions" in lib.upgrade_state[state].held_by
	count(blockers(input.drain[name])) > 0
} else := ""

blockers(d) := array.concat(
	[sprintf("%s refuses evictions (%s): %s", [r.name, r.cause, r.change]) | some r in d.refusals],
	array.concat(
		[sprintf("%s is under %s: the eviction API answers 500", [o.pod, concat(" and ", o.budgets)]) | some o in d.overlaps],
		[sprintf("%s has no controller: the drain needs force", [p.pod]) | some p in d.needs_force],
	),
)

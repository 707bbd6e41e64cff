# DRV030: a GPU node's nvidia.com/gpu-driver-upgrade-state is set and is not
# upgrade-done: the GPU Operator's driver upgrade is under way or stuck
# there. upgrade-failed is an error. The message says what the node waits
# for in its state and, in the states that remove pods, what holds it.
# Without an operator profile the state table's words and the manual
# drain's blockers are used; with one, each state is explained as the
# upgrade controller runs it (reference §2.5, §4.3), with its numbers.
package drvcheck.rules.drv030

import data.drvcheck.lib

meta := {
	"id": "DRV030",
	"title": "upgrade-stalled",
	"severity": "warning",
	"help": "The upgrade controller moves a node through upgrade-required, cordon-required, wait-for-jobs-required, pod-deletion-required, drain-required, pod-restart-required, validation-required and uncordon-required to upgrade-done. A node that stays in one state is stalled; in the states that remove pods the cause is usually a PodDisruptionBudget or a pod the phase cannot remove. upgrade-failed recovers by itself once the driver pod is in sync and Ready; otherwise fix the cause and relabel the node nvidia.com/gpu-driver-upgrade-state=upgrade-required.",
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
		"message": sprintf("%s is in %s and %s%s%s", [node.name, state, explain(node.name, state), cause(node.name, state), cordon(node.name)]),
		"field": sprintf("/metadata/labels/%s", [replace(data.drvcheck.upgrade.label, "/", "~1")]),
		"stalls": [node.name],
	})
}

severity(state) := "error" if state == data.drvcheck.upgrade.failed.name

else := meta.severity

# explain is what a node in state waits for: the operator's own account
# when it rolls the node, else the state table's.
explain(name, state) := e if {
	lib.operator_rolls(name)
	e := operator_explain(name, state)
} else := wait(state)

wait(state) := w if {
	w := lib.upgrade_state[state].waits
} else := "is not a state of the upgrade controller"

operator_explain(name, "upgrade-required") := "is labelled nvidia.com/gpu-driver-upgrade.skip=true: it stays here and never upgrades" if {
	lib.upgrade_node(name).skip
}

operator_explain(name, "upgrade-required") := sprintf("waits for a free upgrade slot: %d free in %s (maxParallelUpgrades %d with %d in progress; %d of %d managed node(s) cordoned or NotReady against maxUnavailable %d)", [
	s.slots, s.name, s.policy.max_parallel_upgrades, s.in_progress, s.unavailable, s.managed, s.max_unavailable,
]) if {
	not lib.upgrade_node(name).skip
	s := lib.upgrade_scope(name)
}

operator_explain(name, "wait-for-jobs-required") := sprintf("waits for the pods of waitForCompletion.podSelector %q on it to finish (%s%s)", [
	p.pod_selector, timeout(p.timeout_seconds, "pod-deletion-required"), elapsed(lib.upgrade_node(name).wait_started),
]) if {
	p := lib.upgrade_scope(name).policy.wait_for_completion
}

operator_explain(name, "pod-deletion-required") := sprintf("waits for its GPU pods to be deleted (%s)", [
	timeout(lib.upgrade_scope(name).policy.pod_deletion.timeout_seconds, lib.after_deletion(name)),
])

operator_explain(name, "drain-required") := sprintf("waits for its drain fallback (%s)", [
	timeout(lib.upgrade_scope(name).policy.drain.timeout_seconds, "upgrade-failed"),
])

operator_explain(_, "pod-restart-required") := "waits for its driver pod to restart with the new driver; the old driver is already unloaded, so the node has no GPU driver until then (a missing image, or a pod that keeps the GPU open, holds it here for good)"

operator_explain(name, "validation-required") := sprintf("waits for the app=nvidia-operator-validator pods on it to be Ready (600s, then upgrade-failed%s; without a validator pod it waits for good)", [
	elapsed(lib.upgrade_node(name).validation_started),
])

operator_explain(_, "upgrade-failed") := "failed: GPU-pod deletion with the drain fallback off, the drain, validation, or a driver pod that restarted more than 10 times. It recovers by itself once its driver pod is in sync and Ready; otherwise fix the cause and relabel it nvidia.com/gpu-driver-upgrade-state=upgrade-required"

operator_explain(_, state) := "is a state of the upgrade library's requestor mode, which the GPU Operator does not use" if {
	state in {"node-maintenance-required", "post-maintenance-required"}
}

operator_explain(_, state) := wait(state) if {
	not state in {
		"upgrade-required", "wait-for-jobs-required", "pod-deletion-required", "drain-required", "pod-restart-required",
		"validation-required", "upgrade-failed", "node-maintenance-required", "post-maintenance-required",
	}
}

timeout(0, _) := "no timeout: it waits for good"

timeout(t, next) := sprintf("after %ds it goes to %s", [t, next]) if t > 0

elapsed(0) := ""

elapsed(t) := sprintf(", started %ds ago", [floor(time.now_ns() / 1000000000) - t]) if t > 0

cause(name, state) := sprintf("; %s", [concat("; ", bs)]) if {
	"evictions" in lib.upgrade_state[state].held_by
	bs := blockers(name, state)
	count(bs) > 0
} else := ""

# blockers: what the operator's phase meets on the node, or what a
# manual drain meets.
blockers(name, state) := operator_blockers(lib.upgrade_node(name), phases[state]) if {
	lib.operator_rolls(name)
} else := drain_blockers(input.drain[name])

phases := {
	"pod-deletion-required": {"podDeletion"},
	"drain-required": {"drain"},
	"upgrade-failed": {"podDeletion", "drain"},
}

operator_blockers(n, ph) := array.concat(
	[sprintf("%s refuses evictions in %s (%s): %s", [r.name, r.phase, r.cause, r.change]) | some r in n.refusals; r.phase in ph],
	array.concat(
		[sprintf("%s cannot be deleted (%s)", [e.pod, e.reason]) | "podDeletion" in ph; some e in n.not_deletable],
		[sprintf("%s has no controller: the drain fallback needs drain.force", [p.pod]) | "drain" in ph; some p in n.drain_needs_force],
	),
)

drain_blockers(d) := array.concat(
	[sprintf("%s refuses evictions (%s): %s", [r.name, r.cause, r.change]) | some r in d.refusals],
	array.concat(
		[sprintf("%s is under %s: the eviction API answers 500", [o.pod, concat(" and ", o.budgets)]) | some o in d.overlaps],
		[sprintf("%s has no controller: the drain needs force", [p.pod]) | some p in d.needs_force],
	),
)

cordon(name) := "; it was cordoned before its upgrade, so the operator leaves it cordoned after it, by design" if {
	lib.upgrade_node(name).initial_unschedulable
} else := ""

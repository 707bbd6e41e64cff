# DRV026: a GPU pod's terminationGracePeriodSeconds is not less than the
# GPU Operator's podDeletion.timeoutSeconds. The eviction lets the pod
# stop for its whole grace period, while the operator gives up on the
# phase at the timeout: a pod that uses its grace period sends the node to
# drain-required or upgrade-failed although nothing refused it.
package drvcheck.rules.drv026

import data.drvcheck.lib

meta := {
	"id": "DRV026",
	"title": "grace-exceeds-timeout",
	"severity": "warning",
	"help": "Keep a GPU pod's terminationGracePeriodSeconds below driver.upgradePolicy.podDeletion.timeoutSeconds (300 by default), or raise the timeout, so that a pod that takes its time to stop does not fail the node's upgrade.",
	"needs": ["nodes"],
}

findings contains f if {
	lib.operator_model
	some w in input.workloads
	lib.reported(w)
	w.gpu.requests
	w.gpu.gpu_nodes > 0
	some s in scopes
	w.gpu.grace_seconds >= s.timeout
	s.timeout == min({t.timeout | some t in scopes})
	f := lib.finding(meta, w.object, {
		"message": sprintf("its pods may take %ds to stop (terminationGracePeriodSeconds), and the GPU Operator gives up deleting GPU pods after %ds (podDeletion.timeoutSeconds of %s): the node then goes to %s", [
			w.gpu.grace_seconds, s.timeout, s.name, s.next,
		]),
		"field": w.gpu.grace_field,
	})
}

# scopes are the rolling scopes whose pod deletion has a timeout.
scopes contains {"name": s.name, "timeout": t, "next": lib.scope_after_deletion(s)} if {
	some s in input.upgrade.scopes
	s.policy.auto_upgrade
	t := s.policy.pod_deletion.timeout_seconds
	t > 0
}

# DRV010: a Pod or pod template whose required node affinity together with
# its nodeSelector matches none of the known nodes. Its pods stay Pending
# forever. The message reads like the scheduler's FitError: every node is
# counted under the first filter it fails (cordon, taints, then affinity).
# A DaemonSet that matches no node creates no pod, so nothing is Pending; it
# is left alone. Without any known node there is nothing to judge against.
package drvcheck.rules.drv010

import data.drvcheck.lib

meta := {
	"id": "DRV010",
	"title": "unschedulable-affinity",
	"severity": "error",
	"help": "The required node affinity and nodeSelector of this workload match none of the known nodes, so the scheduler leaves its pods Pending (FailedScheduling). Check the label keys and values against the nodes' labels (drvcheck status lists them), or relax the requirement.",
	"needs": ["nodes"],
}

# One walk of the workloads serves both kinds of finding: each walk of
# twenty thousand workloads costs OPA about 50 ms, whatever it tests.
findings contains f if {
	some w in input.workloads
	w.placement.matching == 0 # the selective test first: most workloads stop here
	lib.reported(w)
	not w.daemonset
	w.placement.total > 0
	f := finding(w)
}

# Against a GPU-only snapshot, a pod that asks for no GPU may well match a
# node that was left out: it is said, not reported as an error.
finding(w) := lib.finding(meta, w.object, {
	"severity": "info",
	"message": sprintf("%sno known node matches its node affinity and nodeSelector, but %s", [lib.template_prefix(w), lib.gpu_only_note]),
	"field": w.placement.field,
}) if {
	lib.placement_unknown(w)
} else := lib.finding(meta, w.object, {
	"message": sprintf("%s%s%s", [lib.template_prefix(w), w.placement.message, generic_note(w)]),
	"field": w.placement.field,
})

# generic_note says what drvcheck does not know of a custom resource's kind.
generic_note(w) := sprintf(" (%s is a kind drvcheck does not know: its pod template is checked for scheduling, its pods are not modelled for budgets)", [w.object.kind]) if {
	object.get(w, "generic", false)
} else := ""

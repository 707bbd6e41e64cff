# DRV022: a maxUnavailable or percentage budget selects pods without a
# controller. The disruption controller counts only controllers' scale for
# those, so the pods add nothing to expectedPods: a budget of such pods
# alone never allows a disruption, and mixed ones count them wrong.
package drvcheck.rules.drv022

import data.drvcheck.lib

meta := {
	"id": "DRV022",
	"title": "pdb-unmanaged-pods",
	"severity": "warning",
	"help": "With maxUnavailable or a percentage, the disruption controller scales the budget by the pods' controllers; pods without one are not counted (event UnmanagedPods). Use an integer minAvailable, or give the pods a controller.",
}

findings contains f if {
	some pdb in input.pdbs
	count(pdb.unmanaged_pods) > 0
	field := scaled_field(pdb)
	f := lib.finding(meta, pdb.object, {
		"message": sprintf("%s (%s) selects %d pod(s) without a controller (%s): they add nothing to its %d expected pods; use an integer minAvailable", [
			pdb.name, pdb.rule, count(pdb.unmanaged_pods), concat(", ", pdb.unmanaged_pods), pdb.expected,
		]),
		"field": field,
	})
}

scaled_field(pdb) := "/spec/maxUnavailable" if pdb.max_unavailable != ""

else := "/spec/minAvailable" if endswith(pdb.min_available, "%")

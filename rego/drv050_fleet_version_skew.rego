# DRV050: the clusters of one fleet (the results report merge joins) run
# different GPU Operator releases, driver branches or operator stacks. A
# fleet pinned to one version drifts one cluster at a time (NVIDIA/aicr
# #2516, #2383, #464), and a rollout, a rule or a runbook that holds for
# one cluster then fails on another. Judged only over input.clusters,
# which a merge writes: one cluster's run has none.
package drvcheck.rules.drv050

import data.drvcheck.lib

meta := {
	"id": "DRV050",
	"title": "fleet-version-skew",
	"severity": "warning",
	"help": "The clusters of one fleet (the results report merge joins) run different GPU Operator releases, driver branches, or stacks (the device plugin's ClusterPolicy, the DRA GPUCluster). The message groups the clusters by what each runs; bring the odd ones to the fleet's pin, or merge them as a fleet of their own.",
}

fleet := {"kind": "Fleet", "namespace": "", "name": "fleet"}

# What a fleet pins, each with the value of a cluster; a cluster that
# does not say (no release named, no GPU node labelled) is not judged.
aspects := [
	{"what": "GPU Operator releases", "value": release},
	{"what": "driver branches", "value": branches},
	{"what": "operator stacks", "value": stacks},
]

release := {c.name: c.operator_version | some c in input.clusters; c.operator_version != ""}

branches := {c.name: concat("+", c.driver_branches) | some c in input.clusters; count(c.driver_branches) > 0}

stacks := {c.name: concat("+", c.stacks) | some c in input.clusters; count(c.stacks) > 0}

findings contains f if {
	some a in aspects
	values := {v | some v in a.value}
	count(values) > 1
	groups := [sprintf("%s (%s)", [v, concat(", ", sort([name | some name, w in a.value; w == v]))]) | some v in sort(values)]
	f := lib.finding(meta, fleet, {"message": sprintf("the fleet's clusters run %d %s: %s", [count(values), a.what, concat("; ", groups)])})
}

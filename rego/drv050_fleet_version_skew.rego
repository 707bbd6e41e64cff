# DRV050: the clusters of one fleet (the results report merge joins) run
# different GPU Operator releases, driver branches or operator stacks. A
# fleet pinned to one version drifts one cluster at a time (NVIDIA/aicr
# #2516, #2383, #464), and a rollout, a rule or a runbook that holds for
# one cluster then fails on another. Judged only over input.clusters,
# which a merge writes: one cluster's run has none. With --group-by,
# each group of clusters is a fleet of its own.
package drvcheck.rules.drv050

import data.drvcheck.lib

meta := {
	"id": "DRV050",
	"title": "fleet-version-skew",
	"severity": "warning",
	"help": "The clusters of one fleet (the results report merge joins) run different GPU Operator releases, driver branches, or stacks (the device plugin's ClusterPolicy, the DRA GPUCluster). The message groups the clusters by what each runs; bring the odd ones to the fleet's pin, or give fleets of their own a label (--cluster-label) and merge with --group-by.",
}

# The fleets of the run: one, or one per group report merge --group-by
# put the clusters in (the value of the label it names).
fleets := {object.get(c, "group", "") | some c in input.clusters}

fleet_object("") := {"kind": "Fleet", "namespace": "", "name": "fleet"}

fleet_object(g) := {"kind": "Fleet", "namespace": "", "name": g} if g != ""

who("") := "the fleet's clusters"

who(g) := sprintf("the clusters of fleet %s", [g]) if g != ""

# What a fleet pins, each with the value of a cluster; a cluster that
# does not say (no release named, no GPU node labelled) is not judged.
aspects(g) := [
	{"what": "GPU Operator releases", "value": release(g)},
	{"what": "driver branches", "value": branches(g)},
	{"what": "operator stacks", "value": stacks(g)},
]

members(g) := [c | some c in input.clusters; object.get(c, "group", "") == g]

release(g) := {c.name: c.operator_version | some c in members(g); c.operator_version != ""}

branches(g) := {c.name: concat("+", c.driver_branches) | some c in members(g); count(c.driver_branches) > 0}

stacks(g) := {c.name: concat("+", c.stacks) | some c in members(g); count(c.stacks) > 0}

findings contains f if {
	some g in fleets
	some a in aspects(g)
	values := {v | some v in a.value}
	count(values) > 1
	groups := [sprintf("%s (%s)", [v, concat(", ", sort([name | some name, w in a.value; w == v]))]) | some v in sort(values)]
	f := lib.finding(meta, fleet_object(g), {"message": sprintf("%s run %d %s: %s", [who(g), count(values), a.what, concat("; ", groups)])})
}

# DRV012: a workload needs driver branch >= X and its node affinity and
# tolerations admit a GPU node whose branch is below X, where its CUDA
# containers would fail at run time. X comes from the annotation
# drvcheck.io/min-driver-branch (pod template, then workload), else from its
# images' CUDA release (--cuda-compat chooses the floor of a release).
# Cordoned nodes count: the cordon ends, the affinity stays.
package drvcheck.rules.drv012

import data.drvcheck.lib

meta := {
	"id": "DRV012",
	"title": "cuda-driver-too-old",
	"severity": "error",
	"help": "CUDA is forward-compatible one way only: a container built on a newer CUDA fails on an older driver. Require the driver branch in the node affinity (e.g. nvidia.com/cuda.driver.major Gt <floor - 1>), upgrade those nodes first, or state the real floor with the annotation drvcheck.io/min-driver-branch.",
	"needs": ["nodes"],
}

# One walk of the workloads serves both kinds of finding: each walk of
# twenty thousand workloads costs OPA about 50 ms, whatever it tests. A
# workload has a finding of either kind or none; most have none, which the
# first test says: the count of an error message is its length.
findings contains f if {
	some w in input.workloads
	c := w.cuda
	c.older_count + count(c.error) > 0
	lib.reported(w)
	some f in {f | f := too_old(w, c)} | {f | f := bad_annotation(w, c)}
}

too_old(w, c) := lib.finding(meta, w.object, {
	"node": c.older_nodes[0].name,
	"message": sprintf("%sneeds driver branch >= %d (%s) but its affinity admits %s", [lib.template_prefix(w), c.floor, c.detail, older(c)]),
	"field": c.field,
}) if {
	c.older_count > 0
	c.floor > 0
}

# An annotation that is not a branch would silently disable the check.
bad_annotation(w, c) := lib.finding(meta, w.object, {"message": c.error, "field": c.field}) if c.error != ""

older(c) := sprintf("GPU node %s with branch %d", [n.name, n.branch]) if {
	c.older_count == 1
	n := c.older_nodes[0]
}

older(c) := sprintf("%d GPU nodes with an older branch: %s%s", [c.older_count, listed, more(c)]) if {
	c.older_count > 1
	listed := concat(", ", [sprintf("%s (%d)", [n.name, n.branch]) | some n in c.older_nodes])
}

more(c) := sprintf(" and %d more", [c.older_count - count(c.older_nodes)]) if c.older_count > count(c.older_nodes)

more(c) := "" if c.older_count == count(c.older_nodes)

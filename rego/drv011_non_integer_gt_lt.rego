# DRV011: a Gt/Lt node affinity requirement that can never match. The
# scheduler compares both sides as integers (strconv.ParseInt): a value that
# is not an integer makes the whole term unparseable, and a node whose label
# value is not an integer (VERSION_ID=22.04, a kernel string) never matches,
# silently.
package drvcheck.rules.drv011

import data.drvcheck.lib

meta := {
	"id": "DRV011",
	"title": "non-integer-gt-lt",
	"severity": "error",
	"help": "Gt and Lt compare label values as integers. A non-integer value in the requirement, or on the node, never matches and the scheduler says nothing about why. Compare integer labels only (the driver branch, not the OS version or kernel), or use In with the exact values.",
}

findings contains f if {
	some w in input.workloads
	some r in w.gt_lt
	lib.reported(w)
	f := lib.finding(meta, w.object, lib.with_node(
		{
			"message": sprintf("%s%s %s on %s can never match: %s", [lib.template_prefix(w), r.operator, values(r.values), r.key, r.reason]),
			"field": r.field,
		},
		r.node,
	))
}

values(vs) := concat(", ", vs) if count(vs) > 0

values(vs) := "(no value)" if count(vs) == 0

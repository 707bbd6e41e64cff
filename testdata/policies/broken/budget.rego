# BROKEN001: a rule whose unit test expects the wrong thing, so that
# drvcheck verify has a failure to report (exit 1).
package drvcheck.rules.broken001

import data.drvcheck.lib

meta := {
	"id": "BROKEN001",
	"title": "node-cordoned",
	"severity": "warning",
	"help": "Reports cordoned nodes.",
}

findings contains f if {
	some node in input.nodes
	node.unschedulable
	f := lib.finding(meta, node.object, {"message": "cordoned"})
}

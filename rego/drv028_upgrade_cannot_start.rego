# DRV028: the managed nodes of a scope that are already cordoned or
# NotReady use up its maxUnavailable, so GetUpgradesAvailable gives 0
# slots and no driver upgrade starts: every node that needs one waits in
# upgrade-required (k8s-operator-libs common_manager.go).
package drvcheck.rules.drv028

import data.drvcheck.lib

meta := {
	"id": "DRV028",
	"title": "upgrade-cannot-start",
	"severity": "error",
	"help": "The GPU Operator counts cordoned and NotReady managed nodes against driver.upgradePolicy.maxUnavailable (25% of the managed nodes by default, rounded up). Bring the nodes back (or out of the pool), or raise maxUnavailable, so that at least one node can start its upgrade.",
	"needs": ["nodes"],
}

findings contains f if {
	some s in input.upgrade.scopes
	s.policy.auto_upgrade
	s.managed > 0
	s.unavailable >= s.max_unavailable
	f := lib.finding(meta, s.object, {
		"message": sprintf("no driver upgrade can start in %s: %d of %d managed node(s) are cordoned or NotReady (%s), and maxUnavailable %s allows %d; every node that needs an upgrade waits in upgrade-required", [
			s.name, s.unavailable, s.managed, concat(", ", [sprintf("%s %s", [u.node, u.why]) | some u in s.unavailable_nodes]),
			written(s), s.max_unavailable,
		]),
		"field": field(s),
		"stalls": [node.name |
			some node in lib.gpu_nodes
			node.upgrade_state == "upgrade-required"
			lib.upgrade_node(node.name).scope == s.name
		],
	})
}

written(s) := s.max_unavailable_written if s.max_unavailable_written != ""

else := "(unset: every node)"

field(s) := "" if s.policy_field == ""

else := sprintf("%s/maxUnavailable", [s.policy_field])

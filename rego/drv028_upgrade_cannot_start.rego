# DRV028: no driver upgrade can start in a scope. Either the managed nodes
# that are already cordoned or NotReady use up its maxUnavailable, so
# GetUpgradesAvailable gives 0 slots and every node that needs an upgrade
# waits in upgrade-required (k8s-operator-libs common_manager.go); or a
# driver pod runs under a taint it does not tolerate, so the DaemonSet
# schedules fewer pods than run and the library's BuildState fails every
# reconcile (upgrade_state.go:240-245): no node moves at all.
package drvcheck.rules.drv028

import data.drvcheck.lib

meta := {
	"id": "DRV028",
	"title": "upgrade-cannot-start",
	"severity": "error",
	"help": "The GPU Operator counts cordoned and NotReady managed nodes against driver.upgradePolicy.maxUnavailable (25% of the managed nodes by default, rounded up). Bring the nodes back (or out of the pool), or raise maxUnavailable, so that at least one node can start its upgrade. A driver pod on a node whose NoSchedule taint it does not tolerate stops the upgrade library altogether: remove the taint, or add it to the driver DaemonSet's tolerations (ClusterPolicy spec.daemonsets.tolerations).",
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

findings contains f if {
	some s in input.upgrade.scopes
	s.policy.auto_upgrade
	count(s.untolerated) > 0
	f := lib.finding(meta, s.object, {
		"message": sprintf("no driver upgrade can start in %s: the driver pod on %s does not tolerate the node's taint, so the driver DaemonSet schedules fewer pods than run, and the upgrade library refuses to build its state (\"driver DaemonSet should not have Unscheduled pods\"); no node moves until the taint is removed or tolerated (ClusterPolicy spec.daemonsets.tolerations)", [
			s.name, concat(", ", [sprintf("%s (%s)", [u.node, u.taint]) | some u in s.untolerated]),
		]),
		"stalls": [node.name |
			some node in lib.gpu_nodes
			lib.upgrade_node(node.name).scope == s.name
		],
	})
}

written(s) := s.max_unavailable_written if s.max_unavailable_written != ""

else := "(unset: every node)"

field(s) := "" if s.policy_field == ""

else := sprintf("%s/maxUnavailable", [s.policy_field])

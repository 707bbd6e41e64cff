# Helpers about the GPU Operator's rollout (input.upgrade), shared by the
# built-in rules and available to custom rules.
package drvcheck.lib

# operator_model holds when the run read an operator profile: the GPU
# Operator's automatic rollout is then the model of an upgrade; without
# one (the seed lab) it is the manual procedure, a kubectl drain of every
# pod.
operator_model if input.upgrade.operator == true

# upgrade_node(name) is input.upgrade.nodes[name], or {} for a node the
# operator does not roll (no profile, not a managed GPU node).
upgrade_node(name) := object.get(input, ["upgrade", "nodes", name], {})

# operator_rolls(name) holds when the operator upgrades node name by
# itself (a managed node whose scope has autoUpgrade on).
operator_rolls(name) if upgrade_node(name).auto_upgrade == true

# upgrade_scope(name) is the entry of input.upgrade.scopes for the scope
# node name is in, or {}.
upgrade_scope(name) := s if {
	some s in input.upgrade.scopes
	s.name == upgrade_node(name).scope
} else := {}

# after_deletion(name) is where node name goes when its GPU-pod deletion
# fails: the drain fallback when enabled, else upgrade-failed;
# scope_after_deletion(scope) is the same for a scope of input.upgrade.
after_deletion(name) := scope_after_deletion(upgrade_scope(name))

scope_after_deletion(scope) := "drain-required" if {
	scope.policy.drain.enabled
} else := "upgrade-failed"

# listed(names) joins names, naming the first five and counting the rest:
# a message about a fleet stays one readable line.
listed(names) := concat(", ", names) if count(names) <= 5

else := sprintf("%s and %d more", [concat(", ", array.slice(names, 0, 5)), count(names) - 5])

# window_words says each rolling scope's window, for messages.
window_words := concat("; ", sort([sprintf("%s: maxUnavailable %d, maxParallelUpgrades %d", [s.name, s.max_unavailable, s.policy.max_parallel_upgrades]) |
	some s in input.upgrade.scopes
	s.policy.auto_upgrade
]))

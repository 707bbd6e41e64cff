package drvcheck.rules.broken001_test

import data.drvcheck.rules.broken001

node(name, cordoned) := {"name": name, "unschedulable": cordoned, "object": {"kind": "Node", "namespace": "", "name": name}}

# Passes.
test_schedulable_node_is_fine if {
	count(broken001.findings) == 0 with input.nodes as [node("a", false)]
}

# Deliberately wrong: one cordoned node gives one finding, not two.
test_cordoned_node_counted_twice if {
	count(broken001.findings) == 2 with input.nodes as [node("a", true)]
}

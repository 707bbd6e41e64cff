# Helpers shared by the built-in rules, and available to custom rules.
package drvcheck.lib

# finding builds a finding in the documented shape from a rule's meta, the
# object it is about ({kind, namespace, name}) and the rest of its fields
# (message, and node, tag, field where they apply).
finding(meta, obj, extra) := object.union(
	{
		"rule": meta.id,
		"title": meta.title,
		"severity": meta.severity,
		"object": obj,
	},
	extra,
)

# gpu_nodes are the nodes that carry nvidia.com/gpu.present=true, in input
# order. An array, not a set: a set of thousands of node objects is hashed
# and sorted, which costs more than the rules that read it.
gpu_nodes := [node | some node in input.nodes; node.gpu]

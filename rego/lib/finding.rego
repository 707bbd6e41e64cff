# Helpers that shape findings, shared by the built-in rules and available
# to custom rules.
package drvcheck.lib

# finding builds a finding in the documented shape from a rule's meta, the
# object it is about ({kind, namespace, name}) and the rest of its fields
# (message, and node, tag, field, image, fix, stalls where they apply).
# extra wins over the meta: a rule may set "severity" per finding (DRV030
# makes upgrade-failed an error).
finding(meta, obj, extra) := object.union(
	{
		"rule": meta.id,
		"title": meta.title,
		"severity": meta.severity,
		"object": obj,
	},
	extra,
)

# with_node adds "node" to a finding's extra fields when node is set.
with_node(extra, node) := object.union(extra, {"node": node}) if node != ""

with_node(extra, "") := extra

# DRV014: node affinity or nodeSelector names a label key that no known node
# carries, usually a typo or a label from another generation of
# gpu-feature-discovery. NotIn and DoesNotExist on such a key match every
# node, which is often the intent (keep off nodes that would carry it), so
# they are reported only when a known key is close enough to suggest.
package drvcheck.rules.drv014

import data.drvcheck.lib

meta := {
	"id": "DRV014",
	"title": "unknown-label-key",
	"severity": "warning",
	"help": "No known node carries this label key, so the requirement cannot do what it says: In, Exists, Gt and Lt match nothing, NotIn and DoesNotExist match everything. Check the spelling against the nodes' labels.",
	"needs": ["nodes"],
}

where := {
	"nodeSelector": "nodeSelector",
	"required": "required node affinity",
	"preferred": "preferred node affinity",
}

findings contains f if {
	some w in input.workloads
	some k in w.unknown_keys
	lib.reported(w)
	w.placement.total > 0
	reportable(k)
	f := lib.finding(meta, w.object, object.union(
		{"message": concat("", [lib.template_prefix(w), message(k), absent(w)]), "field": k.field},
		severity(w),
	))
}

# Against a GPU-only snapshot, the key may be on a node left out.
severity(w) := {"severity": "info"} if lib.placement_unknown(w)

else := {}

absent(w) := concat("", ["; ", lib.gpu_only_note]) if lib.placement_unknown(w)

else := ""

reportable(k) if not k.operator in {"NotIn", "DoesNotExist"}

reportable(k) if k.suggestion != ""

message(k) := sprintf("no known node carries label %s (%s); did you mean %s?", [k.key, where[k.from], k.suggestion]) if {
	k.suggestion != ""
}

message(k) := sprintf("no known node carries label %s (%s)", [k.key, where[k.from]]) if k.suggestion == ""

# DRV044: the fleet meets a known bug of the GPU Operator's release it
# runs (rego/data/known_bugs.json: the releases each affects, its effect,
# the issue and the fix). Each entry's condition over the input document
# is met(id) below; an entry whose releases exclude the operator's is not
# checked. Only with the operator's version read from the inputs: an
# assumed release says nothing of a fleet's bugs.
package drvcheck.rules.drv044

import data.drvcheck.lib

meta := {
	"id": "DRV044",
	"title": "known-operator-bug",
	"severity": "warning",
	"help": "A configuration that a bug of the GPU Operator's release breaks: the message names the release, the effect, the issue and the fix (an upgrade, or a configuration that avoids it). The table of known bugs, with the releases each affects, is rego/data/known_bugs.json.",
}

findings contains f if {
	not assumed_release
	some bug in data.drvcheck.known_bugs.entries
	affects(bug)
	some hit in met(bug.id)
	f := lib.finding(meta, hit.object, {
		"message": sprintf("%s on GPU Operator %s: %s (%s)", [hit.what, input.operator.operator_version, bug.effect, bug.issue]),
		"fix": bug.fix,
	})
}

assumed_release if startswith(object.get(input.operator, "operator_version_from", ""), "assumed")

release := trim_prefix(input.operator.operator_version, "v")

affects(bug) if {
	not lib.version_below(release, bug.from)
	bug.before == ""
}

affects(bug) if {
	not lib.version_below(release, bug.from)
	lib.version_below(release, bug.before)
}

# An NVIDIADriver with precompiled drivers owning SLES or SL Micro nodes.
met("nvidiadriver-precompiled-suse") := {{"object": d.object, "what": sprintf("%s is precompiled and owns %s", [d.owner, concat(", ", sort(names))])} |
	some d in input.operator.drivers
	d.object.kind == "NVIDIADriver"
	d.precompiled
	names := {n.name |
		some n in lib.managed_gpu_nodes
		object.get(n, ["image", "owner"], "") == d.owner
		n.os_id in {"sles", "sl-micro"}
	}
	count(names) > 0
}

# More than one NVIDIADriver pool.
met("nvidiadriver-pools-share-state") := {{"object": first.object, "what": sprintf("%d NVIDIADriver pools (%s)", [count(pools), concat(", ", sort([p.owner | some p in pools]))])} |
	pools := [d | some d in input.operator.drivers; d.object.kind == "NVIDIADriver"]
	count(pools) > 1
	first := pools[0]
}

# A GPU node whose MIG manager gave up: mig.config.state=failed (the MIG
# manager's label, mig-parted cmd/nvidia-mig-manager). The bug is one cause
# of it; the fix says how to tell.
met("mig-manager-not-retried") := {{"object": n.object, "what": sprintf("%s is at nvidia.com/mig.config.state=failed (mig.config %s)", [n.name, object.get(n.labels, "nvidia.com/mig.config", "unset")])} |
	some n in lib.gpu_nodes
	object.get(n, ["labels", "nvidia.com/mig.config.state"], "") == "failed"
}

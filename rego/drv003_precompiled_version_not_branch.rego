# DRV003: a precompiled driver names a full version (550.90.07) where the
# GPU Operator needs a branch (550): it pulls 550.90.07-<kernel>-<os>, a
# tag NVIDIA never publishes (gpu-operator#933), and the operator does not
# check it.
package drvcheck.rules.drv003

import data.drvcheck.lib

meta := {
	"id": "DRV003",
	"title": "precompiled-version-not-branch",
	"severity": "error",
	"help": "Precompiled driver images are tagged <branch>-<kernel>-<os-tag>, e.g. 550-5.15.0-119-generic-ubuntu22.04. With usePrecompiled: true the operator puts version into the tag as written, so a full version such as 550.90.07 makes a tag that does not exist and every driver Pod fails with ImagePullBackOff. Set version to the branch.",
}

# version_field is where each kind of source writes the version.
version_field := {"ClusterPolicy": "/spec/driver/version", "NVIDIADriver": "/spec/version"}

# A registry of one's own may tag precompiled images by full version (the
# gpu-driver-container's RHCOS build procedure); NVIDIA's public one never
# does. So a full version is an error where the repository is NVIDIA's, or
# where no source of existing tags holds a tag of that version.
findings contains f if {
	some d in input.operator.drivers
	d.version_not_branch
	not own_full_version_tags(d)
	branch := split(d.version, ".")[0]
	f := lib.finding(meta, d.object, {
		"message": sprintf("%s is precompiled with version %s: the operator pulls %s-<kernel>-<os tag>, which is never published; precompiled tags name the branch %s", [d.owner, d.version, d.version, branch]),
		"field": object.get(version_field, d.object.kind, ""),
		"fix": sprintf("set version to %s", [branch]),
	})
}

own_full_version_tags(d) if {
	object.get(d, "full_version_listed", false)
	not object.get(d, "public_repository", true)
}

# DRV009: a precompiled driver whose version is a digest. A precompiled
# tag names the kernel, so a digest cannot stand for it: an NVIDIADriver is
# refused when the operator reconciles it (nvidiadriver_types.go:682-685
# at v26.7.0), and a ClusterPolicy gets <repository>/<image>:<digest>-<kernel>,
# no image reference, in its driver pods (object_controls.go:3383-3394).
# The why is Go's (operator.Driver.Refusal).
package drvcheck.rules.drv009

import data.drvcheck.lib

meta := {
	"id": "DRV009",
	"title": "precompiled-with-digest",
	"severity": "error",
	"help": "Precompiled driver images are tagged <branch>-<kernel>-<os tag>: one image per kernel, which no single digest names. With usePrecompiled: true and a sha256 digest as version, an NVIDIADriver is refused when the operator reconciles it, and a ClusterPolicy's driver pods get an image reference that does not parse (InvalidImageName). Give the driver branch as version, or turn usePrecompiled off to pin a digest.",
}

# version_field is where each kind of source writes the version.
version_field := {"ClusterPolicy": "/spec/driver/version", "NVIDIADriver": "/spec/version"}

findings contains f if {
	some d in input.operator.drivers
	why := object.get(d, "refused", "")
	why != ""
	f := lib.finding(meta, d.object, {
		"message": sprintf("%s is precompiled with the digest %s as version: %s", [d.owner, d.version, why]),
		"field": object.get(version_field, d.object.kind, ""),
		"fix": "set version to the driver branch (580), or usePrecompiled: false to pin a digest",
	})
}

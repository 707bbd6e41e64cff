# DRV007: a precompiled driver with GPUDirect Storage (nvidia-fs) or
# GDRCopy (gdrdrv). The GPU Operator refuses the combination when it
# reconciles: under a ClusterPolicy the driver state fails while it builds
# the DaemonSet (controllers/object_controls.go:3037-3039 for GDS,
# 3130-3132 for GDRCopy, at v26.7.0), and an NVIDIADriver is set NotReady
# with nothing deployed (controllers/nvidiadriver_controller.go:164-172).
# No node gets the new driver; nothing in the objects says so until the
# operator's status does.
package drvcheck.rules.drv007

import data.drvcheck.lib

meta := {
	"id": "DRV007",
	"title": "precompiled-with-gds-or-gdrcopy",
	"severity": "error",
	"help": "NVIDIA builds GPUDirect Storage (nvidia-fs) and GDRCopy (gdrdrv) only against a driver compiled on the node, so the GPU Operator refuses them beside usePrecompiled: true. Under a ClusterPolicy the driver state fails to build its DaemonSet (\"GPUDirect Storage driver (nvidia-fs) is not supported along with pre-compiled NVIDIA drivers\", \"GDRCopy is not supported along with pre-compiled NVIDIA drivers\"); an NVIDIADriver is set NotReady and deploys nothing. Turn GDS and GDRCopy off, or set usePrecompiled: false.",
}

findings contains f if {
	some d in input.operator.drivers
	d.precompiled
	extras := [name | some name in ["GDS", "GDRCopy"]; enabled(d, name)]
	count(extras) > 0
	f := lib.finding(meta, d.object, {
		"message": sprintf("%s is precompiled and enables %s: the operator refuses it (%s), so %s", [d.owner, concat(" and ", extras), refusal(d), affected(d)]),
		"field": object.get(field, [d.object.kind, extras[0]], ""),
		"fix": sprintf("set %s: false, or usePrecompiled: false", [concat(" and ", [key[x] | some x in extras])]),
	})
}

key := {"GDS": "gds.enabled", "GDRCopy": "gdrcopy.enabled"}

enabled(d, "GDS") if object.get(d, "gds", false)

enabled(d, "GDRCopy") if object.get(d, "gdrcopy", false)

refusal(d) := "the NVIDIADriver is set NotReady" if d.object.kind == "NVIDIADriver"

else := "its driver state fails to build the driver DaemonSet"

# affected counts the GPU nodes the driver owns, when nodes were read.
affected(d) := sprintf("its %d GPU node(s) get no new driver", [n]) if {
	n := count([node | some node in lib.managed_gpu_nodes; object.get(node, ["image", "owner"], "") == d.owner])
	n > 0
} else := "no node gets the new driver"

# field is where each kind of source enables each extra.
field := {
	"ClusterPolicy": {"GDS": "/spec/gds/enabled", "GDRCopy": "/spec/gdrcopy/enabled"},
	"NVIDIADriver": {"GDS": "/spec/gds/enabled", "GDRCopy": "/spec/gdrcopy/enabled"},
}

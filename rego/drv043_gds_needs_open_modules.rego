# DRV043: GPUDirect Storage 2.17.5 or later with kernel modules other
# than open. The NVIDIADriver controller refuses it (the CR stays
# NotReady); under a ClusterPolicy nothing checks, and nvidia-fs needs the
# open modules to load.
package drvcheck.rules.drv043

import data.drvcheck.lib

meta := {
	"id": "DRV043",
	"title": "gds-needs-open-modules",
	"severity": "error",
	"help": "GPUDirect Storage (the nvidia-fs container) from 2.17.5 is supported only with the open kernel modules. The GPU Operator's NVIDIADriver controller refuses GDS 2.17.5 or later (or a digest) unless kernelModuleType is exactly open: auto does not count. Under a ClusterPolicy, proprietary fails, and so does auto with a driver before 570.86.15, which does not choose. Set kernelModuleType: open, or turn GDS off.",
}

findings contains f if {
	some d in input.operator.drivers
	v := object.get(d, "gds_version", "")
	v != ""
	new_gds(v)
	kind := lib.kernel_module_type(d)
	some why in refused(d, kind)
	f := lib.finding(meta, d.object, {
		"message": sprintf("%s enables GDS %s with kernelModuleType %s: %s", [d.owner, v, kind, why]),
		"field": object.get(lib.kernel_module_field, d.object.kind, ""),
		"fix": "set kernelModuleType to open",
	})
}

# refused(d, kind) says why GDS cannot load with modules of kind: the
# NVIDIADriver controller refuses anything but open
# (nvidiadriver_controller.go:173-181); under a ClusterPolicy nothing
# checks, and auto chooses the open modules for Turing or later from
# 570.86.15, so only proprietary, or an auto that cannot choose, fails.
refused(d, kind) := {sprintf("the NVIDIADriver controller refuses GDS from %s unless kernelModuleType is exactly open", [data.drvcheck.compat.gds.open_from]) |
	d.object.kind == "NVIDIADriver"
	kind != "open"
} if d.object.kind == "NVIDIADriver"

refused(d, "proprietary") := {sprintf("GDS from %s needs the open modules", [data.drvcheck.compat.gds.open_from])} if d.object.kind != "NVIDIADriver"

refused(d, "auto") := {sprintf("auto does not choose before driver %s, and GDS from %s needs the open modules", [data.drvcheck.compat.auto.min_version, data.drvcheck.compat.gds.open_from]) |
	lib.numeric_version(d.version)
	lib.version_below(d.version, data.drvcheck.compat.auto.min_version)
} if d.object.kind != "NVIDIADriver"

# new_gds: a GDS version from 2.17.5, or a digest, which the operator
# takes as new (IsOpenKernelModulesRequired).
new_gds(v) if startswith(v, "sha256:")

new_gds(v) if {
	lib.numeric_version(trim_prefix(v, "v"))
	not lib.version_below(trim_prefix(v, "v"), data.drvcheck.compat.gds.open_from)
}

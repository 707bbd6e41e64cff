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
	"help": "GPUDirect Storage (the nvidia-fs container) from 2.17.5 is supported only with the open kernel modules, and the GPU Operator's NVIDIADriver controller refuses GDS 2.17.5 or later (or a digest) unless kernelModuleType is exactly open: auto does not count. Set kernelModuleType: open, or turn GDS off.",
}

findings contains f if {
	some d in input.operator.drivers
	v := object.get(d, "gds_version", "")
	v != ""
	new_gds(v)
	kind := lib.kernel_module_type(d)
	kind != "open"
	f := lib.finding(meta, d.object, {
		"message": sprintf("%s enables GDS %s with kernelModuleType %s: GDS from %s needs exactly open", [d.owner, v, kind, data.drvcheck.compat.gds.open_from]),
		"field": object.get(lib.kernel_module_field, d.object.kind, ""),
		"fix": "set kernelModuleType to open",
	})
}

# new_gds: a GDS version from 2.17.5, or a digest, which the operator
# takes as new (IsOpenKernelModulesRequired).
new_gds(v) if startswith(v, "sha256:")

new_gds(v) if {
	lib.numeric_version(trim_prefix(v, "v"))
	not lib.version_below(trim_prefix(v, "v"), data.drvcheck.compat.gds.open_from)
}

# DRV042: kernelModuleType auto on a driver before 570.86.15: the driver
# container of 535 or 550 does not read KERNEL_MODULE_TYPE, so nothing
# chooses, and it installs its own default (the proprietary modules).
package drvcheck.rules.drv042

import data.drvcheck.lib

meta := {
	"id": "DRV042",
	"title": "kernel-module-type-auto-unsupported",
	"severity": "warning",
	"help": "kernelModuleType auto asks the driver container to choose the open or the proprietary modules from the node's GPUs. Only driver containers from 570.86.15 (and 570.124.06 or later) can; 535 and 550 ignore it and install the proprietary modules. Set kernelModuleType to open or proprietary, or move to a driver that chooses.",
}

findings contains f if {
	some d in input.operator.drivers
	object.get(d, "kernel_module_type", "") == "auto"
	lib.numeric_version(d.version)
	lib.version_below(d.version, data.drvcheck.compat.auto.min_version)
	f := lib.finding(meta, d.object, {
		"message": sprintf("%s sets kernelModuleType auto with driver %s: auto needs %s or later; this driver container does not choose and installs the proprietary modules", [d.owner, d.version, data.drvcheck.compat.auto.min_version]),
		"field": object.get(lib.kernel_module_field, d.object.kind, ""),
		"fix": "set kernelModuleType to open or proprietary",
	})
}

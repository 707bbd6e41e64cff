# DRV042: kernelModuleType auto (the CRD's default from v25.3) with a
# driver before 570.86.15, on GPUs that need the open modules: the driver
# container of 535 or 550 does not read KERNEL_MODULE_TYPE, so nothing
# chooses, and it installs its own default, the proprietary modules,
# which those GPUs cannot load. On other GPUs the proprietary modules are
# right, and nothing is said.
package drvcheck.rules.drv042

import data.drvcheck.lib

meta := {
	"id": "DRV042",
	"title": "kernel-module-type-auto-unsupported",
	"severity": "error",
	"help": "kernelModuleType auto asks the driver container to choose the open or the proprietary modules from the node's GPUs. Only driver containers from 570.86.15 (and 570.124.06 or later) can; 535 and 550 ignore it and install the proprietary modules, which Blackwell and Grace Hopper GPUs cannot load. Set kernelModuleType: open (and give those GPUs a driver that supports them), or move to a driver that chooses.",
	"needs": ["nodes"],
}

findings contains f if {
	some d in input.operator.drivers
	lib.kernel_module_type(d) == "auto"
	lib.numeric_version(d.version)
	lib.version_below(d.version, data.drvcheck.compat.auto.min_version)
	nodes := sort([n.name |
		some n in lib.managed_gpu_nodes
		n.image.owner == d.owner
		count(lib.needs_open(n)) > 0
	])
	count(nodes) > 0
	f := lib.finding(meta, d.object, {
		"message": sprintf("%s leaves kernelModuleType to auto with driver %s, on GPUs that need the open modules (%s): auto needs %s or later; this driver container does not choose and installs the proprietary modules", [d.owner, d.version, lib.few(nodes), data.drvcheck.compat.auto.min_version]),
		"field": object.get(lib.kernel_module_field, d.object.kind, ""),
		"fix": "set kernelModuleType to open",
	})
}

# DRV041: a managed GPU node gets kernel modules its GPU cannot load:
# kernelModuleType proprietary on a GPU that needs the open modules
# (Blackwell, GH200), or open on a GPU the open modules do not support
# (Maxwell, Pascal, Volta: no GSP). The driver pod fails to load the
# module on every such node.
package drvcheck.rules.drv041

import data.drvcheck.lib

meta := {
	"id": "DRV041",
	"title": "kernel-modules-unsupported",
	"severity": "error",
	"help": "The GPU Operator installs the kernel modules kernelModuleType names (auto, open or proprietary; auto lets the driver container choose from the node's GPUs, from driver 570.86.15). Blackwell and Grace Hopper GPUs are driven only by the open modules; Maxwell, Pascal and Volta only by the proprietary ones. Set kernelModuleType to what the GPUs need, or auto, or give these nodes an NVIDIADriver of their own.",
	"needs": ["nodes"],
}

findings contains f if {
	# The labelled nodes first, straight from the input: each rule is its
	# own query, and lib.managed_gpu_nodes would be built anew for it.
	some node in input.nodes
	lib.gpu_labelled(node)
	lib.managed_gpu_node(node)
	d := lib.driver_of(node)
	kind := lib.kernel_module_type(d)
	some why in refused(lib.gpu_kind(node), kind)
	f := lib.finding(meta, node.object, {
		"node": node.name,
		"message": sprintf("%s has %s, and %s installs the %s kernel modules: %s", [node.name, lib.gpu_name(node), d.owner, kind, why]),
		"field": sprintf("/metadata/labels/%s", [replace(data.drvcheck.compat.gfd.compute_major, "/", "~1")]),
		"fix": sprintf("set kernelModuleType to %s in %s", [needed[kind], d.owner]),
	})
}

needed := {"proprietary": "open (or auto)", "open": "proprietary (or auto)"}

# refused(gpu, kind) are the reasons a GPU of kind gpu (lib.gpu_kind)
# cannot load the modules of kind, judged once per kind. auto chooses for
# the GPU from 570.86.15; before, the container does not choose, which
# DRV042 reports.
refused(gpu, "proprietary") := lib.kind_needs_open(gpu)

refused(gpu, "open") := {sprintf("the open modules need a GPU with GSP (Turing or later), and %s has none", [arch.name]) |
	arch := lib.kind_architecture(gpu)
	arch.open == false
}

package drvcheck.lib_test

import data.drvcheck.lib

test_version_below if {
	lib.version_below("550.90.07", "570.86.15")
	lib.version_below("570.86.10", "570.86.15")
	not lib.version_below("570.86.15", "570.86.15")
	not lib.version_below("570.124.06", "570.86.15")
	lib.version_below("550", "570.86.15")
	not lib.version_below("570", "570.86.15") # a branch stands for its newest build
	not lib.version_below("2.17.5", "2.17.5")
	lib.version_below("2.16.1", "2.17.5")
}

# Compute capability, not gpu.family, keys the generation: GFD before
# v0.17.2 labels Blackwell "undefined" (k8s-device-plugin c7883eea).
test_architecture_from_compute_capability if {
	node := {"labels": {"nvidia.com/gpu.compute.major": "10", "nvidia.com/gpu.compute.minor": "3", "nvidia.com/gpu.family": "undefined"}}
	lib.gpu_architecture(node).name == "Blackwell"
	lib.gpu_architecture({"labels": {"nvidia.com/gpu.compute.major": "7", "nvidia.com/gpu.compute.minor": "0"}}).name == "Volta"

	# Turing (7.5) has no row: every module type and branch drives it.
	not lib.gpu_architecture({"labels": {"nvidia.com/gpu.compute.major": "7", "nvidia.com/gpu.compute.minor": "5"}})
}

test_unlabelled_node_has_no_architecture if {
	not lib.gpu_architecture({"labels": {}})
	not lib.gpu_architecture({"labels": {"nvidia.com/gpu.compute.major": "x"}})
}

test_kernel_module_type_default if {
	lib.kernel_module_type({"kernel_module_type": "open"}) == "open"
	lib.kernel_module_type({}) == "auto" with input as {"operator": {"operator_version": "v26.7.0"}}
	lib.kernel_module_type({}) == "proprietary" with input as {"operator": {"operator_version": "v24.9.2"}}
}

test_use_open_kernel_modules_before_v25_3 if {
	lib.kernel_module_type({"use_open_kernel_modules": true}) == "open" with input as {"operator": {"operator_version": "v24.9.2"}}
	lib.kernel_module_type({"use_open_kernel_modules": true}) == "auto" with input as {"operator": {"operator_version": "v26.7.0"}}
}

# Rubin (compute 13.x, GFD v0.20.0's gpu.family=rubin) has no row yet.
test_rubin_has_no_architecture if {
	not lib.gpu_architecture({"labels": {"nvidia.com/gpu.compute.major": "13", "nvidia.com/gpu.compute.minor": "0", "nvidia.com/gpu.family": "rubin"}})
}

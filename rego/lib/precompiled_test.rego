package drvcheck.lib_test

import data.drvcheck.lib

# A node NVIDIA's build matrix covers (gpu-driver-container 444814c
# .github/precompiled-matrix-config.json, tests/scripts/build-kernel-matrix.sh:26-41),
# changed one fact at a time.
built := {"arch": "amd64", "os_tag": "ubuntu22.04", "kernel_series": "5.15", "kernel_flavour": "generic",
	"image": {"precompiled": true, "repository": "nvcr.io/nvidia/driver", "version": "580"}}

with_(patch) := json.patch(built, [{"op": "replace", "path": p, "value": v} | some p, v in patch])

test_built if {
	not lib.not_built(built)
	not lib.not_built(with_({"/os_tag": "ubuntu24.04", "/kernel_series": "6.8", "/arch": "arm64"}))
	not lib.not_built(with_({"/os_tag": "ubuntu26.04", "/kernel_series": "7.0", "/image/version": "595"}))
}

test_not_built if {
	lib.not_built(with_({"/os_tag": "rhel9.4"})) == "NVIDIA builds no precompiled driver for rhel9.4 (it builds ubuntu22.04, ubuntu24.04, ubuntu26.04)"
	lib.not_built(with_({"/image/version": "535"})) == "NVIDIA builds no precompiled 535 driver for ubuntu22.04 (it builds 580, 595)"
	lib.not_built(with_({"/os_tag": "ubuntu26.04", "/kernel_series": "7.0"})) == "NVIDIA builds no precompiled 580 driver for ubuntu26.04 (it builds 595)"
	lib.not_built(with_({"/kernel_series": "6.5"})) == "NVIDIA builds no precompiled driver for the 6.5 kernels on ubuntu22.04 (it builds 5.15, 6.8)"
	lib.not_built(with_({"/kernel_flavour": "azure-fde"})) == "NVIDIA builds no precompiled driver for the azure-fde kernel flavour on ubuntu22.04"
	lib.not_built(with_({"/os_tag": "ubuntu24.04", "/kernel_series": "6.8", "/kernel_flavour": "azure-fde", "/arch": "arm64"})) == "NVIDIA builds no arm64 precompiled image for the azure-fde kernel flavour: the pull fails with \"no matching manifest\""
}

# Only NVIDIA's own precompiled images: a registry of one's own, or a
# driver compiled on the node, is not judged by NVIDIA's builds.
test_not_nvidias_build if {
	not lib.not_built(with_({"/image/repository": "registry.corp/nvidia/driver", "/os_tag": "rhel9.4"}))
	not lib.not_built(with_({"/image/precompiled": false, "/os_tag": "rhel9.4"}))
}

# Two reasons of one kind at once (arm64 is built for 24.04 only, and
# never for azure-fde): the first is given, never a conflict.
test_two_arch_reasons if {
	node := with_({"/arch": "arm64", "/kernel_series": "6.8", "/kernel_flavour": "azure-fde"})
	lib.not_built(node) == "NVIDIA builds no precompiled driver for the azure-fde kernel flavour on ubuntu22.04"
	startswith(lib.not_built_for_arch(node), "NVIDIA builds its precompiled images for ubuntu22.04 for amd64 only")
}

package drvcheck.rules.drv040_test

import data.drvcheck.rules.drv040

# Node labels rebuilt from GFD output printed upstream:
# b300: a DGX B300, NVIDIA/k8s-device-plugin#1682 (compute 10.3, driver 580.126.20);
# titan: a Pascal TITAN Xp on 580.126.09, nrp.ai's scheduling tutorial (compute 6.1);
# h100: an H100 80GB HBM3, NVIDIA/k8s-device-plugin#1501 (compute 9.0, derived from the family hopper).
b300 := {"nvidia.com/gpu.product": "NVIDIA-B300-SXM6-AC", "nvidia.com/gpu.family": "blackwell", "nvidia.com/gpu.compute.major": "10", "nvidia.com/gpu.compute.minor": "3"}

titan := {"nvidia.com/gpu.product": "NVIDIA-TITAN-Xp", "nvidia.com/gpu.family": "pascal", "nvidia.com/gpu.compute.major": "6", "nvidia.com/gpu.compute.minor": "1"}

h100 := {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.family": "hopper", "nvidia.com/gpu.compute.major": "9", "nvidia.com/gpu.compute.minor": "0"}

b200 := {"nvidia.com/gpu.product": "NVIDIA-B200", "nvidia.com/gpu.compute.major": "10", "nvidia.com/gpu.compute.minor": "0"}

node(name, labels, version) := {"name": name, "gpu": true, "object": {"kind": "Node", "namespace": "", "name": name}, "labels": labels, "image": {"managed": true, "version": version, "owner": "ClusterPolicy/cluster-policy"}}

messages(nodes) := {f.message | some f in fs} if {
	fs := drv040.findings with input as {"nodes": nodes}
}

test_blackwell_before_r570 if {
	messages([node("b", b300, "550.90.07")]) == {"b has NVIDIA-B300-SXM6-AC (Blackwell), which driver 550.90.07 does not support: Blackwell needs R570 or later"}
}

test_pascal_after_r580 if {
	messages([node("p", titan, "590")]) == {"p has NVIDIA-TITAN-Xp (Pascal), which driver 590 does not support: R580 is the last branch for Pascal"}
	messages([node("p", titan, "580.126.09")]) == set()
}

# HGX B200 needs 570.133.20 (platform-support.rst:214-216): an earlier 570
# build is refused, the branch alone (precompiled: its newest build) is not.
test_product_floor if {
	messages([node("b", b200, "570.86.15")]) == {"b has NVIDIA-B200 (Blackwell), which driver 570.86.15 does not support: HGX B200 needs 570.133.20 or later"}
	messages([node("b", b200, "570")]) == set()
	messages([node("b", b200, "570.133.20")]) == set()
}

# Below its generation's first branch, the product's own floor says
# nothing more: one reason, the generation's.
test_generation_floor_before_product_floor if {
	messages([node("b", b200, "550.90.07")]) == {"b has NVIDIA-B200 (Blackwell), which driver 550.90.07 does not support: Blackwell needs R570 or later"}
}

test_supported_and_unknown_gpus_pass if {
	messages([node("h", h100, "595.91.07")]) == set()
	messages([node("new", {}, "550.90.07")]) == set() # GFD has not labelled it yet
	messages([node("b", b300, "sha256:0000")]) == set()
}

test_field_points_at_the_compute_label if {
	some f in drv040.findings with input as {"nodes": [node("b", b300, "550")]}
	f.field == "/metadata/labels/nvidia.com~1gpu.compute.major"
	f.rule == "DRV040"
}

# GFD v0.20.0 labels Rubin gpu.family=rubin for compute major 13
# (k8s-device-plugin 1b826acc internal/lm/resource.go, #1909). No source
# drvcheck holds says which drivers support it: unknown, never judged,
# whatever the driver.
# (The product name is made up: no public label dump of a Rubin node was found.)
rubin := {"nvidia.com/gpu.product": "NVIDIA-Rubin", "nvidia.com/gpu.family": "rubin", "nvidia.com/gpu.compute.major": "13", "nvidia.com/gpu.compute.minor": "0"}

test_rubin_is_not_judged if {
	messages([node("r", rubin, "470.256.02")]) == set()
	messages([node("r", rubin, "595")]) == set()
}

# Each kind of GPU is judged once (lib.gpu_kind) and every node of it by
# that: a B200 and a B300 are both Blackwell (compute 10.x), and only the
# B200 has a floor of its own above 570.86.15.
test_nodes_judged_by_their_own_kind if {
	nodes := [node(sprintf("n%d", [i]), [b200, b300][i % 2], "570.86.15") | some i in numbers.range(1, 6)]
	{f.node | some f in drv040.findings with input as {"nodes": nodes}} == {"n2", "n4", "n6"}
}

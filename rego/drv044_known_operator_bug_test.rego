package drvcheck.rules.drv044_test

import data.drvcheck.rules.drv044

ref(kind, name) := {"kind": kind, "namespace": "", "name": name}

# NVIDIA's nvd-precompiled-all.yaml (cloud-native-docs manifests/input): one
# precompiled NVIDIADriver for every GPU node.
precompiled := {"owner": "NVIDIADriver/demo-precomp-all", "object": ref("NVIDIADriver", "demo-precomp-all"), "precompiled": true}

# A SLES 16.0 GPU node as harvester/docs prints one (testdata/real/07), owned by it.
node(os_id) := {"name": "hp-1992", "gpu": true, "os_id": os_id, "image": {"managed": true, "owner": "NVIDIADriver/demo-precomp-all"}}

# NVIDIA's nvd-driver-multiple.yaml: the gold and silver pools.
pools := [
	{"owner": "NVIDIADriver/demo-gold", "object": ref("NVIDIADriver", "demo-gold"), "precompiled": false},
	{"owner": "NVIDIADriver/demo-silver", "object": ref("NVIDIADriver", "demo-silver"), "precompiled": false},
]

findings(version, drivers, nodes) := fs if {
	fs := drv044.findings with input as {"operator": {"operator_version": version, "operator_version_from": "the gpu-operator image", "drivers": drivers}, "nodes": nodes}
}

# gpu-operator#2776: v26.7.0, an NVIDIADriver, precompiled, SLES.
test_precompiled_nvidiadriver_on_suse if {
	fs := findings("v26.7.0", [precompiled], [node("sles")])
	count(fs) == 1
	some f in fs
	startswith(f.message, "NVIDIADriver/demo-precomp-all is precompiled and owns hp-1992 on GPU Operator v26.7.0: an NVIDIADriver with usePrecompiled: true renders its driver pod on SLES and SL Micro nodes without")
	endswith(f.message, "(NVIDIA/gpu-operator#2776)")
	count(findings("v26.7.0", [precompiled], [node("sl-micro")])) == 1
}

test_precompiled_nvidiadriver_elsewhere if {
	count(findings("v26.7.0", [precompiled], [node("ubuntu")])) == 0
	count(findings("v26.3.3", [precompiled], [node("sles")])) == 0
	count(findings("v26.7.0", [object.union(precompiled, {"precompiled": false})], [node("sles")])) == 0
}

# gpu-operator#1622: several pools before v25.10.1, which fixed it.
test_pools_before_the_fix if {
	fs := findings("v25.10.0", pools, [])
	count(fs) == 1
	some f in fs
	startswith(f.message, "2 NVIDIADriver pools (NVIDIADriver/demo-gold, NVIDIADriver/demo-silver) on GPU Operator v25.10.0:")
	f.fix == "upgrade the operator to v25.10.1 or later (commit 692552cea, the v25.10.1 cherry-pick of 5853e284a)"
}

test_pools_after_the_fix_or_one_pool if {
	count(findings("v25.10.1", pools, [])) == 0
	count(findings("v26.7.0", pools, [])) == 0
	count(findings("v25.3.0", [pools[0]], [])) == 0
}

# An assumed release says nothing of a fleet's bugs.
test_assumed_release if {
	count(drv044.findings) == 0 with input as {"operator": {"operator_version": "v25.10.0", "operator_version_from": "assumed (the newest drvcheck knows; give --operator-version)", "drivers": pools}, "nodes": []}
}

# gpu-operator#2874: a node left at mig.config.state=failed (the label the
# issue prints) on a release without PR #2881.
mig_node(state) := {"name": "dgx-a100-0", "gpu": true, "object": ref("Node", "dgx-a100-0"), "labels": {"nvidia.com/mig.config": "all-1g.10gb", "nvidia.com/mig.config.state": state}}

test_mig_manager_failed if {
	fs := findings("v25.10.0", [], [mig_node("failed")])
	count(fs) == 1
	some f in fs
	f.object == ref("Node", "dgx-a100-0")
	startswith(f.message, "dgx-a100-0 is at nvidia.com/mig.config.state=failed (mig.config all-1g.10gb) on GPU Operator v25.10.0: after the driver is unloaded")
	endswith(f.message, "(NVIDIA/gpu-operator#2874, #2854)")
	contains(f.fix, "delete that pod")
	count(findings("v26.7.0", [], [mig_node("failed")])) == 1
}

test_mig_manager_success_or_pending if {
	count(findings("v26.7.0", [], [mig_node("success")])) == 0
	count(findings("v26.7.0", [], [mig_node("pending")])) == 0
	count(findings("v26.7.0", [], [object.remove(mig_node("failed"), ["labels"])])) == 0
}

package drvcheck.rules.drv007_test

import data.drvcheck.rules.drv007

# The chart's values with precompiled R580 and GDS, as NVIDIA's docs give
# the two flags (cloud-native-docs@52dcb7b8 precompiled-drivers.rst:107-119,
# gpu-operator-rdma.rst:426-434): a ClusterPolicy stand-in.
cp := {"owner": "ClusterPolicy/cluster-policy", "object": {"kind": "ClusterPolicy", "namespace": "", "name": "cluster-policy"}, "precompiled": true, "gds": true, "gdrcopy": false}

# NVIDIA's NVIDIADriver sample (cloud-native-docs manifests/input/nvd-precompiled-all.yaml) with
# gdrcopy enabled.
nvd := {"owner": "NVIDIADriver/default", "object": {"kind": "NVIDIADriver", "namespace": "", "name": "default"}, "precompiled": true, "gds": false, "gdrcopy": true}

node(owner) := {"name": "s4124-0073", "gpu": true, "image": {"owner": owner}}

findings(d, nodes) := fs if {
	fs := drv007.findings with input as {"operator": {"drivers": [d]}, "nodes": nodes}
}

# object_controls.go:3037-3039 at v26.7.0: the driver state fails.
test_clusterpolicy_with_gds if {
	fs := findings(cp, [node("ClusterPolicy/cluster-policy")])
	count(fs) == 1
	some f in fs
	f.message == "ClusterPolicy/cluster-policy is precompiled and enables GDS: the operator refuses it (its driver state fails to build the driver DaemonSet), so its 1 GPU node(s) get no new driver"
	f.field == "/spec/gds/enabled"
	f.fix == "set gds.enabled: false, or usePrecompiled: false"
}

# nvidiadriver_controller.go:164-172: the CR is set NotReady.
test_nvidiadriver_with_gdrcopy_and_gds if {
	fs := findings(object.union(nvd, {"gds": true}), [])
	count(fs) == 1
	some f in fs
	f.message == "NVIDIADriver/default is precompiled and enables GDS and GDRCopy: the operator refuses it (the NVIDIADriver is set NotReady), so no node gets the new driver"
	f.field == "/spec/gds/enabled"
	f.fix == "set gds.enabled and gdrcopy.enabled: false, or usePrecompiled: false"
}

# Compiled on the node, GDS and GDRCopy are the operator's to deploy; a
# precompiled driver alone is fine.
test_allowed if {
	count(findings(object.union(cp, {"precompiled": false}), [])) == 0
	count(findings(object.union(nvd, {"gdrcopy": false}), [])) == 0
	count(findings({"owner": "ClusterPolicy/p", "object": {"kind": "ClusterPolicy", "namespace": "", "name": "p"}, "precompiled": true}, [])) == 0
}

package drvcheck.rules.drv003_test

import data.drvcheck.rules.drv003

# driver is an operator.drivers entry; not_branch is what Go computes
# (precompiled with a dotted version).
driver(kind, version, precompiled, not_branch) := {
	"object": {"kind": kind, "namespace": "", "name": "p"}, "owner": sprintf("%s/p", [kind]),
	"version": version, "precompiled": precompiled, "version_not_branch": not_branch,
}

test_full_version_precompiled_is_an_error if {
	fs := drv003.findings with input as {"operator": {"drivers": [driver("ClusterPolicy", "550.90.07", true, true)]}}
	count(fs) == 1
	some f in fs
	f.rule == "DRV003"
	f.severity == "error"
	f.object.kind == "ClusterPolicy"
	f.field == "/spec/driver/version"
	f.fix == "set version to 550"
	contains(f.message, "pulls 550.90.07-<kernel>-<os tag>")
}

test_nvidiadriver_points_at_its_version if {
	some f in drv003.findings with input as {"operator": {"drivers": [driver("NVIDIADriver", "570.86.15", true, true)]}}
	f.field == "/spec/version"
}

test_branch_or_not_precompiled_is_fine if {
	count(drv003.findings) == 0 with input as {"operator": {"drivers": [
		driver("ClusterPolicy", "550", true, false),
		driver("NVIDIADriver", "550.90.07", false, false),
	]}}
}

test_lab_has_no_profile if {
	count(drv003.findings) == 0 with input as data.drvcheck.testdata.lab
}

# A registry of one's own that the sources show tagging precompiled images
# by full version: no finding. NVIDIA's public repository never does, even
# where a matrix lists such a tag.
test_full_version_tags_of_ones_own_registry if {
	own := object.union(driver("ClusterPolicy", "525.105.17", true, true), {"public_repository": false, "full_version_listed": true})
	count(drv003.findings) == 0 with input as {"operator": {"drivers": [own]}}
	public := object.union(own, {"public_repository": true})
	count(drv003.findings) == 1 with input as {"operator": {"drivers": [public]}}
	unlisted := object.union(own, {"full_version_listed": false})
	count(drv003.findings) == 1 with input as {"operator": {"drivers": [unlisted]}}
}

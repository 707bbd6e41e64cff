package drvcheck.rules.drv043_test

import data.drvcheck.rules.drv043

driver(kind, gds) := {"owner": "NVIDIADriver/gds", "object": {"kind": "NVIDIADriver", "namespace": "", "name": "gds"}, "kernel_module_type": kind, "gds_version": gds, "version": "570.124.06"}

findings(d) := fs if {
	fs := drv043.findings with input as {"operator": {"operator_version": "v26.7.0", "drivers": [d]}}
}

# The NVIDIADriver controller's check (nvidiadriver_controller.go:173-181):
# GDS 2.17.5 or later, or a digest, needs exactly open; auto does not count.
test_gds_without_open if {
	fs := findings(driver("auto", "2.17.5"))
	count(fs) == 1
	some f in fs
	f.message == "NVIDIADriver/gds enables GDS 2.17.5 with kernelModuleType auto: the NVIDIADriver controller refuses GDS from 2.17.5 unless kernelModuleType is exactly open"
	f.field == "/spec/kernelModuleType"
	count(findings(driver("", "2.29.4"))) == 1
	count(findings(driver("proprietary", "sha256:abcd"))) == 1
}

# Under a ClusterPolicy nothing refuses auto, which chooses open from
# 570.86.15 (Turing or later); proprietary, or an auto that cannot
# choose, fails.
test_gds_under_a_clusterpolicy if {
	cp := object.union(driver("auto", "2.29.4"), {"owner": "ClusterPolicy/p", "object": {"kind": "ClusterPolicy", "namespace": "", "name": "p"}})
	count(findings(cp)) == 0
	count(findings(object.union(cp, {"kernel_module_type": "proprietary"}))) == 1
	count(findings(object.union(cp, {"version": "550.90.07"}))) == 1
}

test_gds_with_open_or_old if {
	count(findings(driver("open", "2.29.4"))) == 0
	count(findings(driver("auto", "2.16.1"))) == 0
	count(findings(driver("auto", ""))) == 0
}

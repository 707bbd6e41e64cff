package drvcheck.rules.drv042_test

import data.drvcheck.rules.drv040_test
import data.drvcheck.rules.drv042

driver(kind, version) := {"owner": "ClusterPolicy/cluster-policy", "object": {"kind": "ClusterPolicy", "namespace": "", "name": "cluster-policy"}, "kernel_module_type": kind, "version": version}

findings(d, labels) := fs if {
	fs := drv042.findings with input as {
		"operator": {"operator_version": "v26.7.0", "drivers": [d]},
		"nodes": [drv040_test.node("n", labels, d.version)],
	}
}

test_auto_on_550_with_blackwell if {
	fs := findings(driver("auto", "550.90.07"), drv040_test.b300)
	count(fs) == 1
	some f in fs
	f.message == "ClusterPolicy/cluster-policy leaves kernelModuleType to auto with driver 550.90.07, on GPUs that need the open modules (n): auto needs 570.86.15 or later; this driver container does not choose and installs the proprietary modules"
	f.field == "/spec/driver/kernelModuleType"
	count(findings(driver("", "550"), drv040_test.b300)) == 1 # the CRD's default
}

# Where proprietary is right (an H100, a Pascal), an auto that does not
# choose harms nothing: no finding.
test_auto_where_it_does_not_matter if {
	count(findings(driver("auto", "550.90.07"), drv040_test.h100)) == 0
	count(findings(driver("auto", "550.90.07"), drv040_test.titan)) == 0
	count(findings(driver("auto", "570.86.15"), drv040_test.b300)) == 0
	count(findings(driver("open", "550.90.07"), drv040_test.b300)) == 0
}

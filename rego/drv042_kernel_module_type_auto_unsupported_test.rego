package drvcheck.rules.drv042_test

import data.drvcheck.rules.drv042

driver(kind, version) := {"owner": "ClusterPolicy/cluster-policy", "object": {"kind": "ClusterPolicy", "namespace": "", "name": "cluster-policy"}, "kernel_module_type": kind, "version": version}

findings(d) := fs if {
	fs := drv042.findings with input as {"operator": {"drivers": [d]}}
}

test_auto_on_550 if {
	fs := findings(driver("auto", "550.90.07"))
	count(fs) == 1
	some f in fs
	f.message == "ClusterPolicy/cluster-policy sets kernelModuleType auto with driver 550.90.07: auto needs 570.86.15 or later; this driver container does not choose and installs the proprietary modules"
	f.field == "/spec/driver/kernelModuleType"
	f.severity == "warning"
}

test_auto_where_it_chooses if {
	count(findings(driver("auto", "570.86.15"))) == 0
	count(findings(driver("auto", "570.124.06"))) == 0
	count(findings(driver("auto", "595"))) == 0
	count(findings(driver("open", "550.90.07"))) == 0
	count(findings(driver("auto", "550"))) == 1
}

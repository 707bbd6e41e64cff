package drvcheck.rules.drv024_test

import data.drvcheck.rules.drv024

pdb(name, pods, templates) := {
	"name": name, "namespace": "gpu-drv", "selector": "app=trainr",
	"object": {"kind": "PodDisruptionBudget", "namespace": "gpu-drv", "name": name},
	"pods": pods, "templates": templates,
}

test_typo_selects_nothing if {
	fs := drv024.findings with input as {"pdbs": [pdb("typo", 0, []), pdb("ok", 4, [{"kind": "Deployment"}])]}
	count(fs) == 1
	some f in fs
	f.object.name == "typo"
	f.severity == "warning"
	f.message == "typo selects no pod or pod template in gpu-drv (selector app=trainr)"
}

test_template_with_zero_replicas_counts if {
	count(drv024.findings) == 0 with input as {"pdbs": [pdb("scaled-down", 0, [{"kind": "Deployment"}])]}
}

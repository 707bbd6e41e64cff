package drvcheck.rules.drv013_test

import data.drvcheck.rules.drv013

term_field := ["spec", "template", "spec", "affinity", "podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution", 0]

workload(replicas, domains, message) := {
	"object": {"kind": "Deployment", "namespace": "gpu-drv", "name": "trainer"},
	"owned": false, "daemonset": false,
	"replicas": replicas,
	"placement": {"total": 4, "eligible": domains, "matching": 4, "message": message},
	"anti_affinity": {
		"self": true, "topology_key": "kubernetes.io/hostname",
		"domains": domains, "unlimited": false, "field": term_field,
	},
}

test_more_replicas_than_nodes_is_a_finding if {
	fs := drv013.findings with input as {"workloads": [workload(4, 3, "3/4 nodes match: 1 node(s) were unschedulable")]}
	count(fs) == 1
	some f in fs
	f.rule == "DRV013"
	f.severity == "error"
	f.title == "anti-affinity-exceeds-nodes"
	f.field == term_field
	f.message == "4 replicas need a node each (required podAntiAffinity on kubernetes.io/hostname) but only 3 may run them, so 1 stay Pending (3/4 nodes match: 1 node(s) were unschedulable)"
}

test_one_replica_per_node_fits if {
	count(drv013.findings) == 0 with input as {"workloads": [workload(4, 4, "4/4 nodes match")]}
}

test_node_without_hostname_label_takes_any_number if {
	w := workload(4, 3, "4/4 nodes match")
	unlimited := object.union(w, {"anti_affinity": object.union(w.anti_affinity, {"unlimited": true})})
	count(drv013.findings) == 0 with input as {"workloads": [unlimited]}
}

test_without_self_anti_affinity_no_finding if {
	w := workload(4, 3, "3/4 nodes match")
	other := object.union(w, {"anti_affinity": {"self": false, "topology_key": "kubernetes.io/hostname"}})
	count(drv013.findings) == 0 with input as {"workloads": [other]}
}

test_nothing_matching_is_left_to_drv010 if {
	w := workload(4, 0, "0/4 nodes match")
	none := object.union(w, {"placement": object.union(w.placement, {"matching": 0})})
	count(drv013.findings) == 0 with input as {"workloads": [none]}
}

package drvcheck.rules.drv015_test

import data.drvcheck.rules.drv015

field := "/spec/template/spec/containers/0/resources"

workload(fit) := {
	"object": {"kind": "Deployment", "namespace": "ml", "name": "trainer"},
	"owned": false, "daemonset": false, "replicas": 1,
	"placement": {"total": 12, "eligible": 8, "matching": 8, "message": "8/12 nodes match"},
	"gpu_fit": fit,
}

too_many := {
	"requests": {"nvidia.com/gpu": 8}, "judged": true, "fits": false, "admitted": 8,
	"message": "0/12 nodes are available: 4 node(s) didn't match Pod's node affinity/selector, 8 Insufficient nvidia.com/gpu (have 4)",
	"fix": "ask for at most 4 nvidia.com/gpu per pod", "field": field,
}

test_more_than_any_admitted_node_has_is_a_finding if {
	fs := drv015.findings with input as {"workloads": [workload(too_many)]}
	count(fs) == 1
	some f in fs
	f.rule == "DRV015"
	f.severity == "error"
	f.title == "gpu-request-unsatisfiable"
	f.field == field
	f.message == "one pod asks for 8 nvidia.com/gpu: 0/12 nodes are available: 4 node(s) didn't match Pod's node affinity/selector, 8 Insufficient nvidia.com/gpu (have 4); ask for at most 4 nvidia.com/gpu per pod"
}

test_a_fit_is_no_finding if {
	count(drv015.findings) == 0 with input as {"workloads": [workload(object.union(too_many, {"fits": true}))]}
}

test_no_gpu_asked_is_no_finding if {
	count(drv015.findings) == 0 with input as {"workloads": [object.remove(workload(too_many), ["gpu_fit"])]}
}

test_no_node_at_all_is_left_to_drv010 if {
	w := workload(too_many)
	none := object.union(w, {"placement": object.union(w.placement, {"matching": 0})})
	count(drv015.findings) == 0 with input as {"workloads": [none]}
}

test_daemonset_and_owned_are_not_reported if {
	w := workload(too_many)
	count(drv015.findings) == 0 with input as {"workloads": [object.union(w, {"daemonset": true}), object.union(w, {"owned": true})]}
}

gang := {
	"pods": 4, "placed": 3, "admitted": 3, "judged": true, "fits": false,
	"why": "a LeaderWorkerSet's groups each run leader and workers together",
	"message": "its 4 GPU pods ask for 32 nvidia.com/gpu in all and must run at once, but the 3 node(s) their node affinity and tolerations admit hold 3 of them (24 nvidia.com/gpu free on them)",
	"field": field,
}

test_a_gang_that_does_not_fit_at_once_is_a_finding if {
	w := object.union(object.remove(workload(too_many), ["gpu_fit"]), {"object": {"kind": "LeaderWorkerSet", "namespace": "ml", "name": "vllm"}, "gang": gang})
	fs := drv015.findings with input as {"workloads": [w]}
	count(fs) == 1
	some f in fs
	f.object.kind == "LeaderWorkerSet"
	f.message == "its 4 GPU pods ask for 32 nvidia.com/gpu in all and must run at once, but the 3 node(s) their node affinity and tolerations admit hold 3 of them (24 nvidia.com/gpu free on them): a LeaderWorkerSet's groups each run leader and workers together. Lower its replicas or GPUs per pod, or admit nodes with room for all of them"
}

test_a_gang_that_fits_is_no_finding if {
	w := object.union(object.remove(workload(too_many), ["gpu_fit"]), {"gang": object.union(gang, {"fits": true})})
	count(drv015.findings) == 0 with input as {"workloads": [w]}
}

test_a_claim_no_node_meets_is_a_finding if {
	claim := {"object": {"kind": "ResourceClaimTemplate", "namespace": "ml", "name": "h100"}, "fits": false,
		"message": "request gpu asks for 1 device(s) of class gpu.nvidia.com, and no node has them", "field": "/spec/spec/devices/requests/0"}
	fs := drv015.findings with input as {"claims": [claim, object.union(claim, {"fits": true})]}
	count(fs) == 1
	some f in fs
	f.object.kind == "ResourceClaimTemplate"
	f.field == "/spec/spec/devices/requests/0"
	f.message == "no node can meet this claim: request gpu asks for 1 device(s) of class gpu.nvidia.com, and no node has them"
}

test_a_claim_met_only_outside_its_constraints_is_a_finding if {
	w := object.union(object.remove(workload(too_many), ["gpu_fit"]), {"claims_fit": {"fits": false,
		"message": "its claim ResourceClaimTemplate/ml/h100 can be met on the fleet, but not on the nodes its node affinity and tolerations admit: no node has them",
		"field": "/spec/template/spec/resourceClaims/0"}})
	fs := drv015.findings with input as {"workloads": [w]}
	count(fs) == 1
	some f in fs
	f.field == "/spec/template/spec/resourceClaims/0"
	startswith(f.message, "its claim ResourceClaimTemplate/ml/h100 can be met on the fleet")
}

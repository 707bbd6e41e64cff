# DRV015: a Pod or pod template asks for more of a GPU resource than any
# node its node affinity and taints admit can ever offer, or for a GPU
# resource none of them advertises: nvidia.com/gpu where time-slicing
# renamed it nvidia.com/gpu.shared, a MIG profile the nodes are not
# partitioned into, 8 GPUs where the nodes have 4. The scheduler leaves
# its pods Pending ("Insufficient nvidia.com/gpu") however empty the
# nodes are. What each node offers is its status.allocatable, or what GPU
# Feature Discovery's labels say the device plugin advertises
# (internal/gpures); a node that says neither is not judged, and then
# neither is the workload. Nodes no constraint admits are DRV010's.
package drvcheck.rules.drv015

import data.drvcheck.lib

meta := {
	"id": "DRV015",
	"title": "gpu-request-unsatisfiable",
	"severity": "error",
	"help": "Every node this workload may run on offers less of a GPU resource than one of its pods asks for, or does not advertise it at all, so its pods stay Pending (FailedScheduling: Insufficient nvidia.com/gpu) even on empty nodes. Ask for the resource the nodes offer (nvidia.com/gpu.shared under time-slicing with renameByDefault, the MIG profiles of the nodes' nvidia.com/mig.config), ask for fewer devices per pod, or admit nodes that have them.",
	"needs": ["nodes"],
}

# One walk of the workloads for both of its workload findings: each walk
# of twenty thousand workloads costs OPA about 50 ms (performance.md).
findings contains f if {
	some w in input.workloads
	f := workload_finding(w)
	lib.reported(w)
}

workload_finding(w) := lib.finding(meta, w.object, {
	"message": sprintf("%sone pod asks for %s: %s; %s", [lib.template_prefix(w), requests(w.gpu_fit.requests), w.gpu_fit.message, w.gpu_fit.fix]),
	"field": w.gpu_fit.field,
}) if {
	w.gpu_fit.fits == false # only workloads that ask for a GPU have gpu_fit
	not w.daemonset
	w.placement.matching > 0 # no node at all is DRV010's finding
} else := lib.finding(meta, w.object, {
	# A gang (a LeaderWorkerSet, JobSet, PyTorchJob, TrainJob or Volcano
	# Job: internal/input/workload_gang.go says which and why) whose pods
	# each fit alone, but not all at once: the first pods take the GPUs and
	# the rest stay Pending, holding the others' GPUs for nothing.
	"message": sprintf("%s: %s. Lower its replicas or GPUs per pod, or admit nodes with room for all of them", [w.gang.message, w.gang.why]),
	"field": w.gang.field,
}) if {
	w.gang.fits == false
} else := lib.finding(meta, w.object, {
	# A DRA claim the pod uses that some node meets, but none it may run
	# on (a claim no node meets is the claim's own finding, below).
	"message": sprintf("%s%s", [lib.template_prefix(w), w.claims_fit.message]),
	"field": w.claims_fit.field,
}) if {
	w.claims_fit.fits == false
}

requests(reqs) := concat(", ", sort([sprintf("%d %s", [n, name]) | some name, n in reqs]))

# A DRA claim (a ResourceClaimTemplate, or a cluster's ResourceClaim not yet
# allocated) no node's devices can meet: its device class and CEL selectors
# accept too few devices on every node (internal/dra, evaluated with
# k8s.io/dynamic-resource-allocation/cel, as the scheduler's allocator
# does). Every pod that uses it stays Pending.
findings contains f if {
	some c in input.claims
	c.fits == false
	f := lib.finding(meta, c.object, {
		"message": sprintf("no node can meet this claim: %s", [c.message]),
		"field": c.field,
	})
}

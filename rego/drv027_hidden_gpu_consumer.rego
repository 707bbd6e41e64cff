# DRV027: a pod reaches the GPUs of a GPU node without requesting them:
# NVIDIA_VISIBLE_DEVICES set for the NVIDIA container runtime (CUDA images
# set it to all), the nvidia runtime class, or a privileged container with
# the device files mounted. The GPU Operator's pod deletion takes only
# pods that request a GPU, and no drain removes a DaemonSet's pod, so the
# pod keeps the driver in use: the driver cannot be unloaded and the node
# stalls in pod-restart-required. The GPU Operator's own components
# (selected by nvidia.com/gpu.deploy.* labels) are stopped by its driver
# manager and are left out.
package drvcheck.rules.drv027

import data.drvcheck.lib

meta := {
	"id": "DRV027",
	"title": "hidden-gpu-consumer",
	"severity": "warning",
	"help": "Request the GPUs the pod uses (resources.limits nvidia.com/gpu) so that the scheduler counts them and the driver upgrade removes the pod, or keep it off GPU nodes; a pod that holds the driver open makes the driver reload fail.",
	"needs": ["nodes"],
}

findings contains f if {
	some w in input.workloads
	count(w.gpu.hidden) > 0 # the selective test first: most workloads stop here
	lib.reported(w)
	not w.gpu.requests
	not w.gpu.operand
	w.gpu.gpu_nodes > 0
	removed_by_no_phase(w)
	f := lib.finding(meta, w.object, {
		"message": sprintf("it reaches the GPU without requesting it (%s) and may run on %d GPU node(s): %s", [
			concat("; ", [h.how | some h in w.gpu.hidden]), w.gpu.gpu_nodes, consequence(w),
		]),
		"field": w.gpu.hidden[0].field,
	})
}

# removed_by_no_phase: the GPU Operator's pod deletion skips it, or it is
# a DaemonSet's, which a drain leaves.
removed_by_no_phase(w) if lib.operator_model

removed_by_no_phase(w) if w.daemonset

consequence(w) := "a drain leaves DaemonSet pods, so it keeps the old driver in use and the node's upgrade stalls in pod-restart-required" if {
	w.daemonset
} else := "the GPU Operator's pod deletion takes only pods that request a GPU, so it keeps the old driver in use and the node's upgrade stalls in pod-restart-required"

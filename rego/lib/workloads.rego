# Workload helpers shared by the scheduling rules (DRV010-DRV014), and
# available to custom rules.
package drvcheck.lib

# reported(w) holds for the workloads findings are reported on: every Pod
# and pod template except those another workload of the input owns (a
# ReplicaSet of a Deployment, a Pod of a ReplicaSet), whose owner carries the
# same template and gets the finding once. Rules iterate input.workloads and
# test this, rather than build a set of workloads: enumerating a set sorts
# it, which for tens of thousands of objects costs more than the rules.
reported(w) if not w.owned

# template_prefix names the pod template a finding is about, for custom
# resources with several ("workerGroupSpecs[0] (gpu): "), else "".
template_prefix(w) := sprintf("%s: ", [w.template]) if {
	object.get(w, "template", "") != ""
} else := ""

# placement_unknown(w): the known nodes include a GPU-only snapshot
# (snapshot nodes --gpu-only, input.summary.gpu_only_nodes), and w's pods
# ask for no GPU: the nodes they may run on are absent, not missing, so
# where they may run is not known.
placement_unknown(w) if {
	input.summary.gpu_only_nodes
	not w.gpu.requests
}

# gpu_only_note says so, for a finding that would otherwise say no node
# matches.
gpu_only_note := "the node snapshot holds GPU nodes only (snapshot nodes --gpu-only) and its pods ask for no GPU, so the nodes they may run on are not known"

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

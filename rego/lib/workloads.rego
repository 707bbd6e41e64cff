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

# with_node adds "node" to a finding's extra fields when node is set.
with_node(extra, node) := object.union(extra, {"node": node}) if node != ""

with_node(extra, "") := extra

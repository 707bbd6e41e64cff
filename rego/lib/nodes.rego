# Node helpers shared by the built-in rules, and available to custom rules.
package drvcheck.lib

# gpu_nodes are the GPU nodes (nvidia.com/gpu.present=true, or an NFD PCI
# label of an NVIDIA device: nodes[].gpu_by), in input
# order. An array, not a set: a set of thousands of node objects is hashed
# and sorted, which costs more than the rules that read it.
gpu_nodes := [node | some node in input.nodes; node.gpu]

# managed_gpu_nodes are the GPU nodes the GPU Operator deploys a driver
# on (nodes[].image.managed: not where nvidia.com/gpu.deploy.driver is
# pre-installed or false, or the node is for VMs, with or without an
# operator profile; every GPU node when the field is absent, as in
# hand-written test inputs).
managed_gpu_nodes := [node | some node in gpu_nodes; object.get(node, ["image", "managed"], true)]

# managed_gpu_node(node): node is one of managed_gpu_nodes, for a rule
# that filters the input's nodes by something cheaper first.
managed_gpu_node(node) if {
	node.gpu
	object.get(node, ["image", "managed"], true)
}

# upgrade_state[name] is the entry of the GPU Operator's upgrade state
# table (data.drvcheck.upgrade, from rego/data/upgrade.json) for the value
# name of nvidia.com/gpu-driver-upgrade-state: what a node there waits
# for, and what can hold it there ("evictions", "image").
upgrade_state[s.name] := s if some s in data.drvcheck.upgrade.path

upgrade_state[s.name] := s if {
	s := data.drvcheck.upgrade.failed
}

# upgrade_holds[name] is what can hold GPU node name where its upgrade
# stands, for the nodes whose upgrade is under way. One object, built once
# per evaluation: as a partial rule, each lookup by name walked every GPU
# node again, and the rules that look up every finding's node took time
# in the square of the fleet's size.
upgrade_holds := {node.name: upgrade_state[node.upgrade_state].held_by |
	some node in gpu_nodes
	node.upgrade_state != ""
}

# stalls(name, cause) is the "stalls" field of a finding about a cause
# ("evictions" or "image") on node name: [name] when that cause can hold
# the node's upgrade where it stands, else []. status shows the finding as
# the explanation of that node's stall.
stalls(name, cause) := [name] if {
	cause in upgrade_holds[name]
} else := []

# GPU generation and driver-version helpers for the compatibility rules
# (DRV040-DRV043), over data.drvcheck.compat (rego/data/compat.json).
package drvcheck.lib

# gpu_kind(node) is what the compatibility rules read of a node's GPU:
# GFD's compute capability (major, minor) and product labels, as strings
# ("" when absent, a minor "0"). The rules look up a GPU's generation and
# product by its kind rather than by its node: OPA keeps a function's
# result by its arguments, so the thousands of nodes of a fleet's few
# kinds are looked up once per kind, not once per node.
gpu_kind(node) := [
	object.get(node.labels, data.drvcheck.compat.gfd.compute_major, ""),
	object.get(node.labels, data.drvcheck.compat.gfd.compute_minor, "0"),
	object.get(node.labels, data.drvcheck.compat.gfd.product, ""),
]

# gpu_architecture(node) is the row of data.drvcheck.compat.architectures
# the node's GFD compute capability falls in; undefined for a node GFD has
# not labelled (a new node: its GPU is not known yet).
gpu_architecture(node) := kind_architecture(gpu_kind(node))

# kind_architecture(kind) is gpu_architecture for a GPU of kind.
kind_architecture(kind) := arch if {
	regex.match(`^[0-9]+$`, kind[0])
	regex.match(`^[0-9]+$`, kind[1])
	cc := cc_number([to_number(kind[0]), to_number(kind[1])])
	some arch in data.drvcheck.compat.architectures
	cc_number(arch.from) <= cc
	cc <= cc_number(arch.to)
}

cc_number(cc) := (cc[0] * 100) + cc[1]

# gpu_labelled(node): GFD has labelled the node's GPU (its compute
# capability or its product); the compatibility rules judge only such
# nodes, and test this first, as most fleets' nodes lack neither or both.
gpu_labelled(node) if node.labels[data.drvcheck.compat.gfd.compute_major]

gpu_labelled(node) if node.labels[data.drvcheck.compat.gfd.product]

# gpu_product(node) is the row of data.drvcheck.compat.products whose
# prefix the node's gpu.product starts with (a MIG or shared product only
# adds a suffix).
gpu_product(node) := kind_product(gpu_kind(node))

# kind_product(kind) is gpu_product for a GPU of kind.
kind_product(kind) := p if {
	kind[2] != ""
	some p in data.drvcheck.compat.products
	startswith(kind[2], p.prefix)
}

# gpu_name(node) names the node's GPU for messages.
gpu_name(node) := sprintf("%s (%s)", [node.labels[data.drvcheck.compat.gfd.product], gpu_architecture(node).name]) if {
	node.labels[data.drvcheck.compat.gfd.product]
	gpu_architecture(node)
} else := node.labels[data.drvcheck.compat.gfd.product] if {
	node.labels[data.drvcheck.compat.gfd.product]
} else := sprintf("a %s GPU", [gpu_architecture(node).name])

# driver_of(node) is the entry of input.operator.drivers that owns node.
driver_of(node) := d if {
	some d in object.get(input, ["operator", "drivers"], [])
	d.owner == node.image.owner
}

# numeric_version says whether v is a branch (550) or a version
# (550.90.07), not a digest or a name.
numeric_version(v) if regex.match(`^[0-9]+(\.[0-9]+){0,2}$`, v)

driver_branch(v) := to_number(split(v, ".")[0])

# version_below(v, min): v is older than the version min. A branch alone
# (a precompiled driver's 570) stands for its newest build, so it is below
# only when its branch is.
version_below(v, min) if {
	count(split(v, ".")) == 1
	driver_branch(v) < driver_branch(min)
}

version_below(v, min) if {
	count(split(v, ".")) > 1
	version_number(v) < version_number(min)
}

version_number(v) := ((p[0] * 1000000) + (p[1] * 1000)) + p[2] if {
	parts := [to_number(x) | some x in split(v, ".")]
	p := array.concat(parts, [0, 0, 0])
}

# kernel_module_type(d) is the driver's kernelModuleType; unset, the
# CRD's default: auto from v25.3.0, which added the field; the
# proprietary modules before (useOpenKernelModules was false by default).
kernel_module_type(d) := t if {
	t := object.get(d, "kernel_module_type", "")
	t != ""
} else := "open" if {
	# Before v25.3 useOpenKernelModules chose the open modules (the field
	# has been read by no code since: clusterpolicy_types.go:574-579).
	version_below(trim_prefix(object.get(input, ["operator", "operator_version"], ""), "v"), "25.3.0")
	object.get(d, "use_open_kernel_modules", false)
} else := "proprietary" if {
	version_below(trim_prefix(object.get(input, ["operator", "operator_version"], ""), "v"), "25.3.0")
} else := "auto"

# kernel_module_field is where each kind of source writes kernelModuleType.
kernel_module_field := {"ClusterPolicy": "/spec/driver/kernelModuleType", "NVIDIADriver": "/spec/kernelModuleType"}

# needs_open(node) are the reasons the node's GPU is driven only by the
# open modules: its generation (Blackwell) or its product (GH200).
needs_open(node) := kind_needs_open(gpu_kind(node))

# kind_needs_open(kind) is needs_open for a GPU of kind.
kind_needs_open(kind) := {why |
	some why in by_arch(kind) | by_product(kind)
}

by_arch(kind) := {sprintf("%s is driven only by the open modules", [arch.name]) |
	arch := kind_architecture(kind)
	arch.proprietary == false
}

by_product(kind) := {sprintf("%s needs the open modules", [p.name]) |
	p := kind_product(kind)
	p.proprietary == false
	count(by_arch(kind)) == 0
}

# few(names) lists up to three names, then how many more.
few(names) := concat(", ", names) if {
	count(names) <= 3
} else := sprintf("%s and %d more", [concat(", ", array.slice(names, 0, 3)), count(names) - 3])

package fleetgen

import "slices"

// The shapes make bench runs, each at the target size (5,000 GPU nodes,
// 20,000 workloads, 5,000 budgets). They differ in what moves the cost,
// not in size: how many pods a node holds and whether room is known, how
// many budgets block, how much anti-affinity, how affinity is written, how
// many namespaces, and how the files are cut.
var (
	// Target is the GitOps repository the generator began with: objects
	// in files of 100, four kinds of pinned workloads (branch and OS in one
	// term), every workload with hostname anti-affinity, Deployments,
	// StatefulSets and Jobs, nodes without resources, one budget in 100
	// blocking.
	Target = Spec{
		Name: "gitops", Nodes: 5000, Workloads: 20000, PDBs: 5000, PerFile: 100,
		NewKernelPer1000: 4, TaintEvery: 10,
		Mixed: true, MaxReplicas: 4, Sprinkle: true, AntiAffinityEvery: 1, Namespaces: 50,
		Pins: []Pin{
			{"nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04", []Expr{{labelMajor, "In", "550"}, {labelOS, "In", "{os}"}}},
			{"nvcr.io/nvidia/cuda:13.0.0-runtime-ubuntu24.04", []Expr{{labelMajor, "In", "580"}, {labelOS, "In", "{os}"}}},
			{"nvcr.io/nvidia/cuda:12.8.1-runtime-ubuntu24.04", []Expr{{labelMajor, "Gt", "540"}, {labelOS, "In", "{os}"}}},
			{"busybox:1.36", []Expr{{labelMajor, "In", "570"}, {labelOS, "In", "{os}"}}},
		},
		Budgets: "spread", BlockEvery: 100,
	}

	// Capacity is the fleet issue 24 reported at 8x, rebuilt from its
	// description: one file of 5,000 nodes that list status.capacity (8
	// GPUs, 110 pods) and no allocatable; 20 files of Deployments with
	// 1-6 replicas of one GPU each, about 70,000 pods; node affinity in
	// five shapes (In on the branch, Gt on it, a Gt no node meets, In on
	// the OS version with gpu.present, In on a zone); one Deployment in
	// seven with hostname anti-affinity; a budget for each of the first
	// 5,000 Deployments, a third with minAvailable equal to the replicas,
	// the rest maxUnavailable 1; 200 namespaces. The issue counted 750
	// DRV001, 4,000 DRV010, 4,000 DRV012 and 1,667 DRV020 on it.
	Capacity = Spec{
		Name: "capacity", Nodes: 5000, Workloads: 20000, PDBs: 5000,
		NodesPerFile: -1, WorkloadsPerFile: 1000, PerFile: 250,
		Resources: "capacity", NewKernelPer1000: 150,
		MaxReplicas: 6, AntiAffinityEvery: 7, Namespaces: 200,
		Pins: []Pin{
			{"nvcr.io/nvidia/cuda:13.0.0-runtime-ubuntu24.04", []Expr{{labelMajor, "In", "580"}}},
			{"nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04", []Expr{{labelMajor, "Gt", "540"}}},
			{"nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04", []Expr{{labelMajor, "Gt", "999"}}},
			{"nvcr.io/nvidia/cuda:13.0.0-runtime-ubuntu24.04", []Expr{{labelOS, "In", "{os}"}, {labelPresent, "In", "true"}}},
			{"busybox:1.36", []Expr{{labelZone, "In", "zone-1"}}},
		},
		Budgets: "each", BlockEvery: 3,
	}

	// Packed is a full fleet: nodes list capacity and allocatable (8 GPUs),
	// 20,000 Deployments of 1-3 replicas fill its 40,000 GPUs, nobody
	// keeps replicas apart, and affinity is by zone or OS only, so a drain
	// has few places to put a pod. Budgets allow one disruption but one in
	// ten; files of 500, 20 namespaces.
	Packed = Spec{
		Name: "packed", Nodes: 5000, Workloads: 20000, PDBs: 5000, PerFile: 500,
		Resources: "allocatable", NewKernelPer1000: 10, TaintEvery: 50,
		MaxReplicas: 3, Namespaces: 20,
		Pins: []Pin{
			{"nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04", []Expr{{labelZone, "In", "zone-0"}}},
			{"nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04", []Expr{{labelOS, "In", "{os}"}}},
			{"busybox:1.36", nil},
		},
		Budgets: "each", BlockEvery: 10,
	}

	// Scattered is a repository of one object per file (30,000 files) in
	// 1,000 namespaces: every workload with hostname anti-affinity, a
	// budget over every fourth workload, one in 50 blocking, a tainted
	// node in five.
	Scattered = Spec{
		Name: "scattered", Nodes: 5000, Workloads: 20000, PDBs: 5000, PerFile: 1,
		NewKernelPer1000: 4, TaintEvery: 5,
		Mixed: true, MaxReplicas: 4, Sprinkle: true, AntiAffinityEvery: 1, Namespaces: 1000,
		Pins:    Target.Pins,
		Budgets: "spread", BlockEvery: 50,
	}

	// CapacityFixed is Capacity with the problems it plants fixed, and
	// nothing else changed: no node on a kernel without its image (DRV001),
	// the affinity no node meets asking for a branch every node runs
	// (DRV010), the CUDA 13 image pinned by OS alone replaced by a CUDA 12
	// one every driver runs (DRV012), and no budget without room (DRV020).
	// The same objects in the same files, about the same bytes: what check
	// costs on Capacity beyond what it costs here is what its findings cost,
	// the allowance docs/performance.md states per finding.
	CapacityFixed = Spec{
		Name: "capacity-fixed", Nodes: Capacity.Nodes, Workloads: Capacity.Workloads, PDBs: Capacity.PDBs,
		NodesPerFile: Capacity.NodesPerFile, WorkloadsPerFile: Capacity.WorkloadsPerFile, PerFile: Capacity.PerFile,
		Resources:   Capacity.Resources,
		MaxReplicas: Capacity.MaxReplicas, AntiAffinityEvery: Capacity.AntiAffinityEvery, Namespaces: Capacity.Namespaces,
		Pins: []Pin{
			Capacity.Pins[0],
			Capacity.Pins[1],
			{"nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04", []Expr{{labelMajor, "Gt", "540"}}},
			{"nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04", Capacity.Pins[3].Exprs},
			Capacity.Pins[4],
		},
		Budgets: Capacity.Budgets,
	}

	// Shapes are the fleets make bench measures, in order.
	Shapes = []Spec{Target, Capacity, Packed, Scattered}
)

// Scaled is s at 1/n of its size, for tests that need its shape quickly.
func (s Spec) Scaled(n int) Spec {
	s.Nodes, s.Workloads, s.PDBs = max(1, s.Nodes/n), max(1, s.Workloads/n), max(1, s.PDBs/n)
	if s.NodesPerFile > 0 {
		s.NodesPerFile = max(1, s.NodesPerFile/n)
	}
	if s.WorkloadsPerFile > 0 {
		s.WorkloadsPerFile = max(1, s.WorkloadsPerFile/n)
	}
	return s
}

// Times is s at n times its size: n times the nodes, workloads and
// budgets, in files of the same size (so n times as many), in the same
// namespaces, as a fleet grows. make bench measures each shape so at 1x,
// 3x and 10x.
func (s Spec) Times(n int) Spec {
	s.Nodes, s.Workloads, s.PDBs = s.Nodes*n, s.Workloads*n, s.PDBs*n
	return s
}

// Twin is the fixed twin make bench measures a shape's findings against
// (CapacityFixed for Capacity), if it has one.
func Twin(s Spec) (Spec, bool) {
	if s.Name == Capacity.Name {
		return CapacityFixed, true
	}
	return Spec{}, false
}

// Shape is the shape, or the twin, of that name.
func Shape(name string) (Spec, bool) {
	for _, s := range append(slices.Clone(Shapes), CapacityFixed) {
		if s.Name == name {
			return s, true
		}
	}
	return Spec{}, false
}

// Package fleetgen writes synthetic GPU fleets as manifest files, for the
// benchmarks that hold drvcheck to its speed budget: thousands of nodes in a
// few dozen kinds (driver branch x kernel x OS), workloads pinned to driver
// branches with CUDA images, anti-affinity and budgets over them, spread
// across files as a GitOps repository would hold them. Like a real
// repository, a fleet is mostly healthy with a sprinkle of every problem (a
// new kernel without its image, CUDA images on too-old drivers, affinity no
// node meets, budgets without room).
//
// A Spec is a shape as well as a size (shapes.go): what moves drvcheck's
// cost is not only how many objects there are but how they relate (pods per
// node, budgets that block, anti-affinity, how the files are cut). The
// output depends only on the Spec, so runs are comparable.
package fleetgen

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
)

// Spec sizes and shapes a fleet. The zero value of a knob is the plainest
// choice; Shapes names the combinations the benchmarks run.
type Spec struct {
	Name                   string
	Nodes, Workloads, PDBs int
	// PerFile is objects per file, 0 meaning 100; NodesPerFile and
	// WorkloadsPerFile override it for their kind (-1: all in one file).
	PerFile, NodesPerFile, WorkloadsPerFile int

	// Resources is what a node's status lists: "" (nothing, so room is
	// unknown), "capacity" (8 GPUs, 110 pods, no allocatable, as a node
	// written by hand often has) or "allocatable" (both).
	Resources string
	// NewKernelPer1000 nodes run a kernel no matrix row lists (DRV001).
	NewKernelPer1000 int
	// TaintEvery: every Nth node is tainted nvidia.com/gpu:NoSchedule (0: none).
	TaintEvery int

	// Mixed workloads are Deployments, StatefulSets and Jobs; otherwise
	// all are Deployments.
	Mixed bool
	// MaxReplicas: workload i has 1 + i%MaxReplicas replicas.
	MaxReplicas int
	// Pins are the workloads' kinds, taken in turn: an image and the node
	// affinity it is written with.
	Pins []Pin
	// Sprinkle adds the rare problems of a GitOps repository: a CUDA 13
	// image pinned to 570 in every 200 workloads (DRV012), Gt on the OS
	// version in every 500 (DRV011, DRV010).
	Sprinkle bool
	// AntiAffinityEvery: every Nth workload keeps its replicas on distinct
	// hosts (0: none).
	AntiAffinityEvery int
	// SpreadEvery: every Nth workload spreads its replicas over zones,
	// maxSkew 1 (0: none).
	SpreadEvery int
	Namespaces  int
	// GPUs: workload i asks for GPUs[i%len(GPUs)] GPUs (nil: one each).
	GPUs []int
	// TolerateCordonEvery: every Nth workload tolerates a cordon
	// (node.kubernetes.io/unschedulable:NoSchedule; 0: none).
	TolerateCordonEvery int

	// Budgets: "spread" gives budget i the workload i*Workloads/PDBs, and
	// "each" gives it workload i; BlockEvery budgets leave no room
	// (minAvailable equal to the replicas). The others allow one
	// disruption: "spread" mixes minAvailable replicas-1 with
	// maxUnavailable 25%, "each" says maxUnavailable 1.
	Budgets    string
	BlockEvery int
}

// Pin is a kind of GPU workload: its image and the matchExpressions of its
// one required node-affinity term. An expression's values may hold {os},
// replaced by the workload's Ubuntu version.
type Pin struct {
	Image string
	Exprs []Expr
}

// Expr is one node-selector requirement.
type Expr struct{ Key, Op, Value string }

const (
	labelMajor   = "nvidia.com/cuda.driver-version.major"
	labelOS      = "feature.node.kubernetes.io/system-os_release.VERSION_ID"
	labelPresent = "nvidia.com/gpu.present"
	labelZone    = "topology.kubernetes.io/zone"
)

var (
	branches = []string{"535", "550", "570", "580"}
	kernels  = []string{"5.15.0-119-generic", "5.15.0-107-generic", "6.8.0-45-generic", "6.8.0-52-generic", "5.15.0-1061-aws"}
	oses     = []string{"22.04", "24.04"}
	// newKernel is in no matrix row (DRV001).
	newKernel = "6.8.0-60-generic"
)

// Write generates the fleet under dir (k8s/*.yaml) and a support matrix
// (support-matrix.csv) that lacks the new kernel's tags. It returns the
// matrix path.
func Write(dir string, s Spec) (string, error) {
	s = s.withDefaults()
	w := &writer{dir: filepath.Join(dir, "k8s")}
	if err := os.MkdirAll(w.dir, 0o755); err != nil {
		return "", err
	}
	w.per = s.NodesPerFile
	for i := range s.Nodes {
		w.add("node", s.node(i))
	}
	w.per = s.WorkloadsPerFile
	for i := range s.Workloads {
		w.add("workload", s.workload(i))
	}
	w.per = s.PerFile
	for i := range s.PDBs {
		w.add("pdb", s.budget(i))
	}
	if err := w.flush(); err != nil {
		return "", err
	}
	if w.err != nil {
		return "", w.err
	}
	return writeMatrix(dir)
}

func (s Spec) withDefaults() Spec {
	if s.PerFile == 0 {
		s.PerFile = 100
	}
	per := func(n, total int) int {
		switch {
		case n == 0:
			return s.PerFile
		case n < 0:
			return max(1, total)
		}
		return n
	}
	s.NodesPerFile = per(s.NodesPerFile, s.Nodes)
	s.WorkloadsPerFile = per(s.WorkloadsPerFile, s.Workloads)
	s.MaxReplicas = max(1, s.MaxReplicas)
	s.Namespaces = max(1, s.Namespaces)
	if len(s.Pins) == 0 {
		s.Pins = []Pin{{Image: "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04"}}
	}
	return s
}

type writer struct {
	dir, kind string
	per, n, f int
	buf       []byte
	err       error // the first write error; later adds are dropped
}

func (w *writer) add(kind, doc string) {
	if w.err != nil {
		return
	}
	if kind != w.kind || w.n >= w.per {
		w.err = w.flush()
		w.kind = kind
	}
	w.buf = append(w.buf, "---\n"...)
	w.buf = append(w.buf, doc...)
	w.n++
}

func (w *writer) flush() error {
	if w.n == 0 {
		return nil
	}
	name := filepath.Join(w.dir, fmt.Sprintf("%s-%05d.yaml", w.kind, w.f))
	w.f++
	w.n = 0
	err := os.WriteFile(name, w.buf, 0o644)
	w.buf = w.buf[:0]
	return err
}

// writeMatrix lists every generated combination but those of newKernel,
// so a run has DRV001 findings to report.
func writeMatrix(dir string) (string, error) {
	path := filepath.Join(dir, "support-matrix.csv")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "driver_branch,kernel,os_tag")
	for _, b := range branches {
		for _, k := range kernels {
			for _, o := range oses {
				fmt.Fprintf(w, "%s,%s,ubuntu%s\n", b, k, o)
			}
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}

// Package fleetgen writes synthetic GPU fleets as manifest files, for the
// benchmarks that hold drvcheck to its speed budget: thousands of nodes in a
// few dozen kinds (driver branch x kernel x OS), workloads pinned to driver
// branches with CUDA images, hostname anti-affinity and budgets over them,
// spread across files as a GitOps repository would hold them. Like a real
// repository, the fleet is mostly healthy with a sprinkle of every problem
// (a new kernel without its image, CUDA images on too-old drivers, Gt on a
// non-integer label, budgets without room). The output depends only on the
// Spec, so runs are comparable.
package fleetgen

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
)

// Spec sizes a fleet.
type Spec struct {
	Nodes, Workloads, PDBs int
	PerFile                int // objects per file; 0 means 100
}

// The speed target's fleet (README, make bench).
var Target = Spec{Nodes: 5000, Workloads: 20000, PDBs: 5000, PerFile: 100}

var (
	branches = []string{"535", "550", "570", "580"}
	kernels  = []string{"5.15.0-119-generic", "5.15.0-107-generic", "6.8.0-45-generic", "6.8.0-52-generic", "5.15.0-1061-aws"}
	oses     = []string{"22.04", "24.04"}
	// newKernel is on every 250th node and in no matrix row (DRV001).
	newKernel = "6.8.0-60-generic"
	// pins are the kinds of GPU workloads: an image and the driver
	// constraint it is written with.
	pins = []struct{ image, op, value string }{
		{"nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04", "In", "550"},
		{"nvcr.io/nvidia/cuda:13.0.0-runtime-ubuntu24.04", "In", "580"},
		{"nvcr.io/nvidia/cuda:12.8.1-runtime-ubuntu24.04", "Gt", "540"},
		{"busybox:1.36", "In", "570"},
	}
)

// Write generates the fleet under dir (k8s/*.yaml) and a support matrix
// (support-matrix.csv) that lacks a few of the fleet's tags. It returns the
// matrix path.
func Write(dir string, s Spec) (string, error) {
	if s.PerFile == 0 {
		s.PerFile = 100
	}
	w := &writer{dir: filepath.Join(dir, "k8s"), per: s.PerFile}
	if err := os.MkdirAll(w.dir, 0o755); err != nil {
		return "", err
	}
	for i := range s.Nodes {
		w.add("node", nodeYAML(i))
	}
	for i := range s.Workloads {
		w.add("workload", workloadYAML(i))
	}
	for i := range s.PDBs {
		w.add("pdb", pdbYAML(i, s.Workloads))
	}
	if err := w.flush(); err != nil {
		return "", err
	}
	if w.err != nil {
		return "", w.err
	}
	return writeMatrix(dir)
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
	if kind != w.kind || w.n == w.per {
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

func nodeYAML(i int) string {
	b, k, o := branches[i%len(branches)], kernels[(i/4)%len(kernels)], oses[(i/20)%len(oses)]
	if i%250 == 249 {
		k = newKernel
	}
	name := fmt.Sprintf("gpu-%05d", i)
	taint := ""
	if i%10 == 0 {
		taint = "  taints:\n  - key: nvidia.com/gpu\n    value: present\n    effect: NoSchedule\n"
	}
	return fmt.Sprintf(`apiVersion: v1
kind: Node
metadata:
  name: %[1]s
  labels:
    kubernetes.io/hostname: %[1]s
    kubernetes.io/os: linux
    topology.kubernetes.io/zone: zone-%[6]d
    nvidia.com/gpu.present: "true"
    nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
    nvidia.com/cuda.driver-version.major: "%[2]s"
    nvidia.com/cuda.driver-version.minor: "90"
    nvidia.com/cuda.driver-version.revision: "07"
    feature.node.kubernetes.io/kernel-version.full: %[3]s
    feature.node.kubernetes.io/system-os_release.ID: ubuntu
    feature.node.kubernetes.io/system-os_release.VERSION_ID: "%[4]s"
spec:
  providerID: kwok://%[1]s
%[5]sstatus:
  conditions:
  - type: Ready
    status: "True"
`, name, b, k, o, taint, i%3)
}

func workloadYAML(i int) string {
	pin := pins[i%len(pins)]
	if i%200 == 101 { // a CUDA 13 image on a 570 driver (DRV012)
		pin = pins[1]
		pin.value = "570"
	}
	osKey, osValue := "feature.node.kubernetes.io/system-os_release.VERSION_ID", "In\n                values: [\""+oses[i%len(oses)]+"\"]"
	if i%500 == 233 { // Gt on a non-integer label (DRV011, DRV010)
		osValue = "Gt\n                values: [\"22\"]"
	}
	kind, apiVersion := "Deployment", "apps/v1"
	switch i % 10 {
	case 7:
		kind = "StatefulSet"
	case 8:
		kind, apiVersion = "Job", "batch/v1"
	}
	replicas := ""
	if kind != "Job" {
		replicas = fmt.Sprintf("  replicas: %d\n", 1+i%4)
	}
	selector := ""
	if kind != "Job" {
		selector = fmt.Sprintf("  selector:\n    matchLabels:\n      app: app-%05d\n", i)
	}
	return fmt.Sprintf(`apiVersion: %[1]s
kind: %[2]s
metadata:
  name: app-%05[3]d
  namespace: team-%[4]d
  labels:
    app: app-%05[3]d
spec:
%[5]s%[6]s  template:
    metadata:
      labels:
        app: app-%05[3]d
    spec:
      containers:
      - name: main
        image: %[7]s
        resources:
          limits:
            nvidia.com/gpu: 1
      tolerations:
      - key: nvidia.com/gpu
        operator: Exists
        effect: NoSchedule
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - key: nvidia.com/cuda.driver-version.major
                operator: %[8]s
                values: ["%[9]s"]
              - key: %[10]s
                operator: %[11]s
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - topologyKey: kubernetes.io/hostname
            labelSelector:
              matchLabels:
                app: app-%05[3]d
`, apiVersion, kind, i, i%50, replicas, selector, pin.image, pin.op, pin.value, osKey, osValue)
}

// pdbYAML leaves room for one disruption, as a healthy budget does, but
// for every 100th budget, which leaves none (DRV020).
func pdbYAML(i, workloads int) string {
	target := i * max(1, workloads/max(1, 5000)) % max(1, workloads)
	pods := 1 + target%4
	if target%10 == 8 { // a Job: one pod
		pods = 1
	}
	budget := fmt.Sprintf("minAvailable: %d", pods-1)
	switch {
	case i%100 == 41:
		budget = fmt.Sprintf("minAvailable: %d", pods)
	case i%4 == 1:
		budget = "maxUnavailable: 25%"
	}
	return fmt.Sprintf(`apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: pdb-%05[1]d
  namespace: team-%[2]d
spec:
  %[3]s
  selector:
    matchLabels:
      app: app-%05[4]d
`, i, target%50, budget, target)
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

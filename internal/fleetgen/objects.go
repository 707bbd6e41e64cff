package fleetgen

import (
	"fmt"
	"strings"
)

// node writes node i: its branch, kernel and OS cycle at different
// strides, so the fleet holds every combination in a few dozen label sets.
func (s Spec) node(i int) string {
	b, k, o := branches[i%len(branches)], kernels[(i/4)%len(kernels)], oses[(i/20)%len(oses)]
	if (i+1)*s.NewKernelPer1000/1000 > i*s.NewKernelPer1000/1000 { // spread evenly, at any size
		k = newKernel
	}
	name := fmt.Sprintf("gpu-%05d", i)
	taint := ""
	if s.TaintEvery > 0 && i%s.TaintEvery == 0 {
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
%[7]s  conditions:
  - type: Ready
    status: "True"
`, name, b, k, o, taint, i%3, s.resources())
}

func (s Spec) resources() string {
	const list = "    cpu: \"96\"\n    memory: 2Ti\n    nvidia.com/gpu: \"8\"\n    pods: \"110\"\n"
	switch s.Resources {
	case "capacity":
		return "  capacity:\n" + list
	case "allocatable":
		return "  capacity:\n" + list + "  allocatable:\n" + list
	}
	return ""
}

// workload writes workload i: a Deployment (or, when Mixed, a StatefulSet
// or Job) of one GPU each, with its pin's node affinity.
func (s Spec) workload(i int) string {
	pin := s.Pins[i%len(s.Pins)]
	osVersion := oses[i%len(oses)]
	exprs := make([]Expr, len(pin.Exprs))
	copy(exprs, pin.Exprs)
	if s.Sprinkle && i%200 == 101 { // a CUDA 13 image on a 570 driver (DRV012)
		pin.Image = "nvcr.io/nvidia/cuda:13.0.0-runtime-ubuntu24.04"
		exprs = []Expr{{labelMajor, "In", "570"}, {labelOS, "In", "{os}"}}
	}
	if s.Sprinkle && i%500 == 233 { // Gt on a non-integer label (DRV011, DRV010)
		exprs = append(exprs[:len(exprs):len(exprs)], Expr{labelOS, "Gt", "22"})
	}
	kind, apiVersion := "Deployment", "apps/v1"
	if s.Mixed {
		switch i % 10 {
		case 7:
			kind = "StatefulSet"
		case 8:
			kind, apiVersion = "Job", "batch/v1"
		}
	}
	app := fmt.Sprintf("app-%05d", i)
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: %s\nkind: %s\nmetadata:\n  name: %s\n  namespace: team-%d\n  labels:\n    app: %s\nspec:\n",
		apiVersion, kind, app, s.namespace(i), app)
	if kind != "Job" {
		fmt.Fprintf(&b, "  replicas: %d\n  selector:\n    matchLabels:\n      app: %s\n", s.replicas(i), app)
	}
	fmt.Fprintf(&b, `  template:
    metadata:
      labels:
        app: %s
    spec:
      containers:
      - name: main
        image: %s
        resources:
          limits:
            nvidia.com/gpu: %d
      tolerations:
      - key: nvidia.com/gpu
        operator: Exists
        effect: NoSchedule
`, app, pin.Image, s.gpus(i))
	if s.TolerateCordonEvery > 0 && i%s.TolerateCordonEvery == 0 {
		b.WriteString("      - key: node.kubernetes.io/unschedulable\n        operator: Exists\n        effect: NoSchedule\n")
	}
	b.WriteString("      affinity:\n")
	if len(exprs) > 0 {
		b.WriteString("        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n            - matchExpressions:\n")
		for _, e := range exprs {
			fmt.Fprintf(&b, "              - key: %s\n                operator: %s\n                values: [%q]\n",
				e.Key, e.Op, strings.ReplaceAll(e.Value, "{os}", osVersion))
		}
	}
	if s.AntiAffinityEvery > 0 && i%s.AntiAffinityEvery == 0 {
		fmt.Fprintf(&b, `        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - topologyKey: kubernetes.io/hostname
            labelSelector:
              matchLabels:
                app: %s
`, app)
	}
	if s.SpreadEvery > 0 && i%s.SpreadEvery == 0 {
		fmt.Fprintf(&b, `      topologySpreadConstraints:
      - maxSkew: 1
        topologyKey: %s
        whenUnsatisfiable: DoNotSchedule
        labelSelector:
          matchLabels:
            app: %s
`, labelZone, app)
	}
	return b.String()
}

func (s Spec) namespace(workload int) int { return workload % s.Namespaces }

// replicas is how many pods workload i runs: a Job runs one.
// gpus is what each pod of workload i asks for.
func (s Spec) gpus(i int) int {
	if len(s.GPUs) == 0 {
		return 1
	}
	return s.GPUs[i%len(s.GPUs)]
}

func (s Spec) replicas(i int) int {
	if s.Mixed && i%10 == 8 {
		return 1
	}
	return 1 + i%s.MaxReplicas
}

// budget writes budget i over one workload's pods.
func (s Spec) budget(i int) string {
	target := i % max(1, s.Workloads)
	if s.Budgets == "spread" {
		target = i * max(1, s.Workloads/max(1, s.PDBs)) % max(1, s.Workloads)
	}
	pods := s.replicas(target)
	spec := "maxUnavailable: 1"
	switch {
	case s.BlockEvery > 0 && i%s.BlockEvery == 0:
		spec = fmt.Sprintf("minAvailable: %d", pods)
	case s.Budgets != "spread":
	case i%4 == 1:
		spec = "maxUnavailable: 25%"
	default:
		spec = fmt.Sprintf("minAvailable: %d", pods-1)
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
`, i, s.namespace(target), spec, target)
}

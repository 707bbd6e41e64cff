package workload

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/input/docval"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// operandPrefix marks the GPU Operator's own DaemonSets: each selects the
// nodes labelled nvidia.com/gpu.deploy.<component>=true, and the driver
// manager stops them itself before it unloads the driver.
const operandPrefix = "nvidia.com/gpu.deploy."

// gpuUse is workloads[].gpu: whether the GPU Operator's pod deletion
// takes the workload's pods (its GPU filter), how long they take to stop,
// and the ways they reach a GPU without asking the scheduler for one.
func (c *workloadFacts) gpuUse(w *inventory.Workload, p *sched.Placement) map[string]any {
	spec := &w.Template.Spec
	grace, graceField := int64(corev1.DefaultTerminationGracePeriodSeconds), specField(w)
	if g := spec.TerminationGracePeriodSeconds; g != nil {
		grace, graceField = *g, specField(w, "terminationGracePeriodSeconds")
	}
	requests := drain.GPUPod(spec)
	hidden := []any{}
	if !requests {
		hidden = hiddenUses(w)
	}
	gpuNodes := 0
	if requests || len(hidden) > 0 {
		gpuNodes = c.gpuNodes(p)
	}
	build := func() map[string]any {
		return map[string]any{
			"requests":      requests,
			"grace_seconds": grace,
			"grace_field":   docval.Pointer(graceField),
			"hidden":        hidden,
			"operand":       operand(spec),
			"gpu_nodes":     gpuNodes,
		}
	}
	if len(hidden) > 0 {
		return build() // the hidden uses name the workload's own fields
	}
	return c.once(gpuKey{requests, grace, docval.Pointer(graceField), operand(spec), gpuNodes}, build)
}

// gpuKey is a GPU use without hidden uses.
type gpuKey struct {
	requests   bool
	grace      int64
	graceField string
	operand    bool
	gpuNodes   int
}

// gpuNodes counts the GPU nodes the placement admits (cordoned ones too).
func (c *workloadFacts) gpuNodes(p *sched.Placement) int {
	n := 0
	for _, v := range p.Classes {
		if v.Admits() && c.classFactsOf(v.Class).gpu {
			n += len(v.Class.Nodes)
		}
	}
	return n
}

// hiddenUses are the ways a pod spec reaches the GPUs without requesting
// them: the NVIDIA container runtime gives every container that asks
// through NVIDIA_VISIBLE_DEVICES (CUDA images set it to all), and a
// privileged container can open the device files directly.
func hiddenUses(w *inventory.Workload) []any {
	spec := &w.Template.Spec
	out := []any{}
	if rc := spec.RuntimeClassName; rc != nil && strings.Contains(*rc, "nvidia") {
		out = append(out, map[string]any{"how": "runtimeClassName " + *rc, "field": docval.Pointer(specField(w, "runtimeClassName"))})
	}
	for i, ctr := range spec.Containers {
		for j, e := range ctr.Env {
			if e.Name == "NVIDIA_VISIBLE_DEVICES" && e.Value != "" && e.Value != "void" && e.Value != "none" {
				out = append(out, map[string]any{
					"how":   fmt.Sprintf("container %s sets NVIDIA_VISIBLE_DEVICES=%s", ctr.Name, e.Value),
					"field": docval.Pointer(specField(w, "containers", i, "env", j)),
				})
			}
		}
		if sc := ctr.SecurityContext; sc != nil && sc.Privileged != nil && *sc.Privileged {
			if v := deviceVolume(spec, ctr); v != "" {
				out = append(out, map[string]any{
					"how":   fmt.Sprintf("container %s is privileged and mounts %s", ctr.Name, v),
					"field": docval.Pointer(specField(w, "containers", i, "securityContext", "privileged")),
				})
			}
		}
	}
	return out
}

// deviceVolume is the hostPath under /dev that ctr mounts and that holds
// the NVIDIA device files, or "".
func deviceVolume(spec *corev1.PodSpec, ctr corev1.Container) string {
	paths := map[string]string{}
	for _, v := range spec.Volumes {
		if v.HostPath != nil {
			paths[v.Name] = v.HostPath.Path
		}
	}
	for _, m := range ctr.VolumeMounts {
		p := strings.TrimSuffix(paths[m.Name], "/")
		if p == "/dev" || strings.HasPrefix(p, "/dev/nvidia") {
			return p
		}
	}
	return ""
}

// operand says whether the spec is one of the GPU Operator's own
// components, which select the nodes by an nvidia.com/gpu.deploy.* label.
func operand(spec *corev1.PodSpec) bool {
	for k := range spec.NodeSelector {
		if strings.HasPrefix(k, operandPrefix) {
			return true
		}
	}
	a := spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return false
	}
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, r := range t.MatchExpressions {
			if strings.HasPrefix(r.Key, operandPrefix) {
				return true
			}
		}
	}
	return false
}

package snapshot

import (
	"fmt"
	"io"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/drvcheck/drvcheck/internal/nodefacts"
)

// operatorPrefix marks the annotations kept: the GPU Operator's (its
// upgrade controller's wait and timeout marks among them).
const operatorPrefix = "nvidia.com/"

type list struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Items      []node `json:"items"`
}

type node struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   meta   `json:"metadata"`
	Spec       spec   `json:"spec,omitzero"`
	Status     status `json:"status,omitzero"`
}

type meta struct {
	Name        string            `json:"name"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type spec struct {
	Unschedulable bool           `json:"unschedulable,omitempty"`
	Taints        []corev1.Taint `json:"taints,omitempty"`
}

type status struct {
	Allocatable corev1.ResourceList `json:"allocatable,omitempty"`
	Conditions  []condition         `json:"conditions,omitempty"`
}

// condition drops the times and the message, which change without the
// node changing.
type condition struct {
	Type   corev1.NodeConditionType `json:"type"`
	Status corev1.ConditionStatus   `json:"status"`
	Reason string                   `json:"reason,omitempty"`
}

// GPUOnly marks every node of a snapshot taken with --gpu-only: the
// other nodes of the cluster are absent, not missing, and rules then do
// not judge where pods that ask for no GPU may run.
const GPUOnly = "drvcheck.io/snapshot"

const gpuOnlyValue = "gpu-only"

// IsGPUOnly says whether n comes from a snapshot taken with --gpu-only.
func IsGPUOnly(n *corev1.Node) bool { return n.Annotations[GPUOnly] == gpuOnlyValue }

// WriteNodes writes nodes (only the GPU ones with gpuOnly, each marked
// so), sorted by name, and returns how many it wrote and how many of them
// are GPU nodes. Every node is kept by default: a workload's node
// affinity may select a CPU pool, and without its nodes a check would
// say that no node matches.
func WriteNodes(w io.Writer, nodes []*corev1.Node, gpuOnly bool) (written, gpus int, err error) {
	l := list{APIVersion: "v1", Kind: "List", Items: []node{}}
	for _, n := range nodes {
		gpu := nodefacts.Of(n).GPU
		if gpuOnly && !gpu {
			continue
		}
		t := trim(n)
		if gpuOnly {
			if t.Metadata.Annotations == nil {
				t.Metadata.Annotations = map[string]string{}
			}
			t.Metadata.Annotations[GPUOnly] = gpuOnlyValue
		}
		l.Items = append(l.Items, t)
		if gpu {
			gpus++
		}
	}
	slices.SortFunc(l.Items, func(a, b node) int { return strings.Compare(a.Metadata.Name, b.Metadata.Name) })
	data, err := yaml.Marshal(l)
	if err != nil {
		return 0, 0, err
	}
	header := fmt.Sprintf("# drvcheck snapshot nodes: %d nodes, %d of them GPU nodes (%s=true or an NVIDIA PCI label); labels, taints, allocatable, conditions.\n",
		len(l.Items), gpus, nodefacts.GPUPresent)
	if gpuOnly {
		header = fmt.Sprintf("# drvcheck snapshot nodes --gpu-only: %d GPU nodes (labels, taints, allocatable, conditions); the cluster's other nodes are left out.\n", len(l.Items))
	}
	if _, err := io.WriteString(w, header); err != nil {
		return 0, 0, err
	}
	_, err = w.Write(data)
	return len(l.Items), gpus, err
}

func trim(n *corev1.Node) node {
	out := node{APIVersion: "v1", Kind: "Node",
		Metadata: meta{Name: n.Name, Labels: n.Labels, Annotations: operatorAnnotations(n.Annotations)},
		Spec:     spec{Unschedulable: n.Spec.Unschedulable},
		Status:   status{Allocatable: n.Status.Allocatable},
	}
	for _, t := range n.Spec.Taints {
		out.Spec.Taints = append(out.Spec.Taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	for _, c := range n.Status.Conditions {
		out.Status.Conditions = append(out.Status.Conditions, condition{Type: c.Type, Status: c.Status, Reason: c.Reason})
	}
	return out
}

func operatorAnnotations(a map[string]string) map[string]string {
	var out map[string]string
	for k, v := range a {
		if strings.HasPrefix(k, operatorPrefix) {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

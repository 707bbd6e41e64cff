package nodefacts

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A node is a GPU node as the GPU Operator finds one (state_manager.go,
// hasGPULabels): gpu.present, or an NFD PCI label of an NVIDIA device on
// a node that has just joined; and the node's own labels say when the
// operator deploys no driver there, with or without its configuration.
func TestGPUByAndManaged(t *testing.T) {
	for _, c := range []struct {
		labels      map[string]string
		by, reason  string
		gpu, manage bool
	}{
		{map[string]string{GPUPresent: "true"}, GPUPresent, "", true, true},
		{map[string]string{"feature.node.kubernetes.io/pci-0302_10de.present": "true"}, "feature.node.kubernetes.io/pci-0302_10de.present", "", true, true},
		{map[string]string{"feature.node.kubernetes.io/pci-10de.present": "true"}, "feature.node.kubernetes.io/pci-10de.present", "", true, true},
		{map[string]string{"feature.node.kubernetes.io/pci-10de.present": "false"}, "", "", false, true},
		{map[string]string{GPUPresent: "false"}, "", "", false, true},
		{map[string]string{GPUPresent: "true", DeployDriver: "pre-installed"}, GPUPresent, DeployDriver + "=pre-installed", true, false},
		{map[string]string{GPUPresent: "true", DeployDriver: "false"}, GPUPresent, DeployDriver + "=false", true, false},
		{map[string]string{GPUPresent: "true", WorkloadConfig: "vm-passthrough"}, GPUPresent, WorkloadConfig + "=vm-passthrough", true, false},
	} {
		f := Of(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: c.labels}})
		if f.GPU != c.gpu || f.GPUBy != c.by || f.Image.Managed != c.manage || f.Image.Reason != c.reason {
			t.Errorf("%v: gpu %v by %q managed %v %q", c.labels, f.GPU, f.GPUBy, f.Image.Managed, f.Image.Reason)
		}
	}
}

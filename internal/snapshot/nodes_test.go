package snapshot

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

func gpuNode(name string) *corev1.Node {
	now := metav1.Now()
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: "u-1", ResourceVersion: "42",
			Labels: map[string]string{"nvidia.com/gpu.present": "true"},
			Annotations: map[string]string{
				"nvidia.com/gpu-driver-upgrade-wait-for-safe-load-start-time": "1700000000",
				"node.alpha.kubernetes.io/ttl":                                "0",
				"kubeadm.alpha.kubernetes.io/cri-socket":                      "unix:///run/containerd/containerd.sock",
			}},
		Spec: corev1.NodeSpec{Unschedulable: true, PodCIDR: "10.0.0.0/24", ProviderID: "aws:///i-123",
			Taints: []corev1.Taint{{Key: "nvidia.com/gpu", Effect: corev1.TaintEffectNoSchedule, TimeAdded: &now}}},
		Status: corev1.NodeStatus{
			Allocatable: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")},
			Capacity:    corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")},
			Addresses:   []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.1.2.3"}},
			NodeInfo:    corev1.NodeSystemInfo{KernelVersion: "5.15.0"},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				Message: "kubelet is posting ready status", LastHeartbeatTime: now, LastTransitionTime: now}},
		},
	}
}

func TestWriteNodesKeepsWhatChecksRead(t *testing.T) {
	cpu := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "cpu-1"}}
	var buf bytes.Buffer
	n, gpus, err := WriteNodes(&buf, []*corev1.Node{gpuNode("gpu-b"), cpu, gpuNode("gpu-a")}, true)
	if err != nil || n != 2 || gpus != 2 {
		t.Fatalf("WriteNodes: %d %d %v", n, gpus, err)
	}
	out := buf.String()
	for _, gone := range []string{"cpu-1", "10.1.2.3", "aws://", "10.0.0.0", "u-1", "resourceVersion", "kubelet is posting", "Time", "ttl", "cri-socket", "capacity", "5.15.0"} {
		if strings.Contains(out, gone) {
			t.Errorf("the snapshot keeps %q:\n%s", gone, out)
		}
	}
	var l corev1.NodeList
	if err := yaml.UnmarshalStrict(buf.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 2 || l.Items[0].Name != "gpu-a" || l.Items[1].Name != "gpu-b" {
		t.Fatalf("items %v, want gpu-a then gpu-b", l.Items)
	}
	got := l.Items[0]
	q := got.Status.Allocatable["nvidia.com/gpu"]
	if !got.Spec.Unschedulable || len(got.Spec.Taints) != 1 || got.Spec.Taints[0].Key != "nvidia.com/gpu" ||
		q.Value() != 8 || len(got.Status.Conditions) != 1 || got.Status.Conditions[0].Reason != "KubeletReady" ||
		got.Labels["nvidia.com/gpu.present"] != "true" || len(got.Annotations) != 2 || got.Annotations[GPUOnly] != "gpu-only" ||
		got.Annotations["nvidia.com/gpu-driver-upgrade-wait-for-safe-load-start-time"] != "1700000000" {
		t.Errorf("read back %+v", got)
	}
	// The same nodes give the same bytes: a committed snapshot changes only
	// when a node does.
	var again bytes.Buffer
	if _, _, err := WriteNodes(&again, []*corev1.Node{gpuNode("gpu-a"), gpuNode("gpu-b")}, true); err != nil || again.String() != out {
		t.Errorf("second snapshot differs: %v\n%s", err, again.String())
	}
}

// By default every node is kept, CPU nodes too, with the same fields and
// no mark.
func TestWriteNodesKeepsEveryNode(t *testing.T) {
	cpu := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "cpu-1", Labels: map[string]string{"pool": "cpu"},
		Annotations: map[string]string{"node.alpha.kubernetes.io/ttl": "0"}}}
	var buf bytes.Buffer
	n, gpus, err := WriteNodes(&buf, []*corev1.Node{gpuNode("gpu-a"), cpu}, false)
	if err != nil || n != 2 || gpus != 1 {
		t.Fatalf("WriteNodes: %d %d %v", n, gpus, err)
	}
	var l corev1.NodeList
	if err := yaml.UnmarshalStrict(buf.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 2 || l.Items[0].Name != "cpu-1" || l.Items[0].Labels["pool"] != "cpu" || len(l.Items[0].Annotations) != 0 ||
		l.Items[1].Annotations[GPUOnly] != "" {
		t.Fatalf("items %+v", l.Items)
	}
}

package gpures

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// What the device plugin offers, read from GFD's labels, against what
// NVIDIA's docs print for the same node (label sets and capacity from
// cloud-native-docs 52dcb7b8 gpu-operator/gpu-sharing.rst L418-456 and
// gpu-operator-mig.rst L186-250; the older A100 page baf91eb9 L199-222).
func TestOfferFromLabels(t *testing.T) {
	for name, c := range map[string]struct {
		labels map[string]string
		want   map[corev1.ResourceName]int64
	}{
		"four T4s": {map[string]string{"nvidia.com/gpu.count": "4", "nvidia.com/gpu.product": "Tesla-T4"},
			map[corev1.ResourceName]int64{"nvidia.com/gpu": 4}},
		"time-slicing, 4 replicas, not renamed: 16 nvidia.com/gpu": {map[string]string{"nvidia.com/gpu.count": "4", "nvidia.com/gpu.product": "Tesla-T4-SHARED",
			"nvidia.com/gpu.replicas": "4", "nvidia.com/gpu.sharing-strategy": "time-slicing"}, map[corev1.ResourceName]int64{"nvidia.com/gpu": 16}},
		"time-slicing renamed: 16 nvidia.com/gpu.shared": {map[string]string{"nvidia.com/gpu.count": "4", "nvidia.com/gpu.product": "Tesla-T4",
			"nvidia.com/gpu.replicas": "4", "nvidia.com/gpu.sharing-strategy": "time-slicing"}, map[corev1.ResourceName]int64{"nvidia.com/gpu.shared": 16}},
		"MIG single, all-1g.10gb on H100: 7": {map[string]string{"nvidia.com/gpu.count": "7", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb",
			"nvidia.com/mig.config": "all-1g.10gb", "nvidia.com/mig.config.state": "success", "nvidia.com/mig.strategy": "single"}, map[corev1.ResourceName]int64{"nvidia.com/gpu": 7}},
		// The A100 single node above (7 x 1g.5gb on one GPU) relabelled
		// all-3g.20gb, mig-manager not done: 2 per GPU (mig.go's A100 40GB
		// row); all-disabled: the one GPU whole; all-balanced: -MIG-INVALID.
		"MIG single, all-3g.20gb pending on A100-40GB: 2": {map[string]string{"nvidia.com/gpu.count": "7", "nvidia.com/gpu.product": "A100-SXM4-40GB-MIG-1g.5gb",
			"nvidia.com/mig.config": "all-3g.20gb", "nvidia.com/mig.config.state": "pending", "nvidia.com/mig.strategy": "single"}, map[corev1.ResourceName]int64{"nvidia.com/gpu": 2}},
		"MIG single, all-disabled relabelled: 1 whole GPU": {map[string]string{"nvidia.com/gpu.count": "7", "nvidia.com/gpu.product": "A100-SXM4-40GB-MIG-1g.5gb",
			"nvidia.com/mig.config": "all-disabled", "nvidia.com/mig.config.state": "success", "nvidia.com/mig.strategy": "single"}, map[corev1.ResourceName]int64{"nvidia.com/gpu": 1}},
		"MIG single, all-balanced pending: invalid": {map[string]string{"nvidia.com/gpu.count": "8", "nvidia.com/gpu.product": "A100-SXM4-40GB",
			"nvidia.com/mig.config": "all-balanced", "nvidia.com/mig.config.state": "pending", "nvidia.com/mig.strategy": "single"}, map[corev1.ResourceName]int64{"nvidia.com/gpu": 0}},
		"MIG single, failed: as labelled": {map[string]string{"nvidia.com/gpu.count": "7", "nvidia.com/gpu.product": "A100-SXM4-40GB-MIG-1g.5gb",
			"nvidia.com/mig.config": "all-3g.20gb", "nvidia.com/mig.config.state": "failed", "nvidia.com/mig.strategy": "single"}, map[corev1.ResourceName]int64{"nvidia.com/gpu": 7}},
		"MIG single, invalid layout: none": {map[string]string{"nvidia.com/gpu.count": "0", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3-MIG-INVALID",
			"nvidia.com/mig.strategy": "single"}, map[corev1.ResourceName]int64{"nvidia.com/gpu": 0}},
		"MIG mixed, all-balanced on H100": {map[string]string{"nvidia.com/gpu.count": "1", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.replicas": "0",
			"nvidia.com/mig-1g.10gb.count": "2", "nvidia.com/mig-2g.20gb.count": "1", "nvidia.com/mig-3g.40gb.count": "1",
			"nvidia.com/mig.config": "all-balanced", "nvidia.com/mig.strategy": "mixed"},
			map[corev1.ResourceName]int64{"nvidia.com/gpu": 0, "nvidia.com/mig-1g.10gb": 2, "nvidia.com/mig-2g.20gb": 1, "nvidia.com/mig-3g.40gb": 1}},
		"MIG mixed, time-sliced profile, renamed": {map[string]string{"nvidia.com/gpu.count": "1", "nvidia.com/mig.strategy": "mixed", "nvidia.com/mig.config": "all-1g.10gb",
			"nvidia.com/mig-1g.10gb.count": "7", "nvidia.com/mig-1g.10gb.replicas": "2", "nvidia.com/mig-1g.10gb.sharing-strategy": "time-slicing",
			"nvidia.com/mig-1g.10gb.product": "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb"},
			map[corev1.ResourceName]int64{"nvidia.com/gpu": 0, "nvidia.com/mig-1g.10gb.shared": 14}},
		// mig.config set to all-3g.40gb on the H100 above, mig-manager not
		// done yet: the node is to offer 2 per GPU (0400_configmap.yaml:
		// 167), not what its labels say now.
		"MIG mixed, a new config pending": {map[string]string{"nvidia.com/gpu.count": "8", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
			"nvidia.com/mig-1g.10gb.count": "56", "nvidia.com/mig.config": "all-3g.40gb", "nvidia.com/mig.config.state": "pending", "nvidia.com/mig.strategy": "mixed"},
			map[corev1.ResourceName]int64{"nvidia.com/gpu": 0, "nvidia.com/mig-3g.40gb": 16}},
		// A pull request that sets all-balanced on A100-40GB nodes whose
		// labels still say all-1g.5gb: all-balanced's layout (line 422).
		"MIG mixed, a config the labels do not show yet": {map[string]string{"nvidia.com/gpu.count": "1", "nvidia.com/gpu.product": "A100-SXM4-40GB",
			"nvidia.com/mig-1g.5gb.count": "7", "nvidia.com/mig.config": "all-balanced", "nvidia.com/mig.config.state": "success", "nvidia.com/mig.strategy": "mixed"},
			map[corev1.ResourceName]int64{"nvidia.com/gpu": 0, "nvidia.com/mig-1g.5gb": 2, "nvidia.com/mig-2g.10gb": 1, "nvidia.com/mig-3g.20gb": 1}},
		// mig-manager failed: the old layout stays (reconfigure.go:540-579).
		"MIG mixed, the new config failed": {map[string]string{"nvidia.com/gpu.count": "1", "nvidia.com/gpu.product": "A100-SXM4-40GB",
			"nvidia.com/mig-1g.5gb.count": "7", "nvidia.com/mig.config": "all-balanced", "nvidia.com/mig.config.state": "failed", "nvidia.com/mig.strategy": "mixed"},
			map[corev1.ResourceName]int64{"nvidia.com/gpu": 0, "nvidia.com/mig-1g.5gb": 7}},
	} {
		o := OfferOf(&corev1.Node{ObjectMeta: metaWith(c.labels)}, nil)
		if o.From != FromLabels || len(o.Resources) != len(c.want) {
			t.Errorf("%s: %+v, want %v", name, o, c.want)
			continue
		}
		for r, n := range c.want {
			if o.Resources[r] != n {
				t.Errorf("%s: %s = %d, want %d", name, r, o.Resources[r], n)
			}
		}
	}
	if o := OfferOf(&corev1.Node{}, nil); o.Known() {
		t.Errorf("a node with neither status nor GFD labels: %+v", o)
	}
}

// A node's status wins over its labels: it is the device plugin's own count.
func TestOfferFromStatus(t *testing.T) {
	n := &corev1.Node{ObjectMeta: metaWith(map[string]string{"nvidia.com/gpu.count": "8"})}
	n.Status.Capacity = corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("0"), "nvidia.com/gpu.shared": resource.MustParse("16"), "cpu": resource.MustParse("64")}
	o := OfferOf(n, nil)
	if o.From != FromAllocatable || o.Resources["nvidia.com/gpu"] != 0 || o.Resources["nvidia.com/gpu.shared"] != 16 || len(o.Resources) != 2 {
		t.Errorf("%+v", o)
	}
	if ok, lacking := o.Holds([]Request{{"nvidia.com/gpu", 1}}); ok || lacking != "nvidia.com/gpu" {
		t.Errorf("holds %v %s", ok, lacking)
	}
}

// Requests are counted as the scheduler counts them: a container's limit
// where it sets no request; init containers at their peak; a sidecar
// (restartPolicy Always) beside the containers.
func TestRequests(t *testing.T) {
	gpus := func(n string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse(n)}}
	}
	always := corev1.ContainerRestartPolicyAlways
	spec := &corev1.PodSpec{
		InitContainers: []corev1.Container{{Resources: gpus("4")}, {Resources: gpus("1"), RestartPolicy: &always}},
		Containers:     []corev1.Container{{Resources: gpus("1")}, {Resources: gpus("1")}},
	}
	got := Requests(spec)
	if len(got) != 1 || got[0].Value != 4 {
		t.Errorf("%+v, want 4 (the first init container's)", got)
	}
	spec.InitContainers[0].Resources = gpus("1")
	if got := Requests(spec); got[0].Value != 3 {
		t.Errorf("%+v, want 3 (two containers and the sidecar)", got)
	}
	if got := Requests(&corev1.PodSpec{Containers: []corev1.Container{{}}}); len(got) != 0 {
		t.Errorf("no GPU asked: %+v", got)
	}
}

func metaWith(labels map[string]string) metav1.ObjectMeta { return metav1.ObjectMeta{Labels: labels} }

// Which config gives a model's GPUs a profile, from the operator's
// default mig-parted configs.
func TestMIGConfigFor(t *testing.T) {
	for _, c := range []struct{ product, profile, config, model string }{
		{"NVIDIA-H100-80GB-HBM3", "3g.40gb", "all-3g.40gb", "A100/A800/H100/H800 80GB"},
		{"A100-SXM4-40GB", "3g.40gb", "", "A100/A800 40GB"},
		{"NVIDIA-GH200-480GB", "1g.24gb", "all-1g.24gb", "GH200 96GB, H100 96GB, H20"},
		{"NVIDIA-H200", "1g.18gb", "all-1g.18gb", "H200"},
		{"Tesla-T4", "1g.5gb", "", ""},
	} {
		config, _, model, _ := MIGConfigFor(c.product, c.profile)
		if config != c.config || model != c.model {
			t.Errorf("%s %s: %q %q, want %q %q", c.product, c.profile, config, model, c.config, c.model)
		}
	}
}

// The device plugin's configs as its README writes them: which resources
// a container may ask no more than one of, per node by its label, else
// the default key, else none.
func TestSharingOneEach(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "gpu-operator", Name: "dp"}, Data: map[string]string{
		"ts":         "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n",
		"ts-fail":    "version: v1\nsharing:\n  timeSlicing:\n    renameByDefault: true\n    failRequestsGreaterThanOne: true\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n",
		"mps":        "version: v1\nsharing:\n  mps:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 10\n",
		"mps-lets":   "version: v1\nsharing:\n  mps:\n    failRequestsGreaterThanOne: false\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 10\n",
		"no-sharing": "version: v1\nflags:\n  migStrategy: none\n",
	}}
	s, err := NewSharing(cm, "mps")
	if err != nil {
		t.Fatal(err)
	}
	for label, want := range map[string]string{
		"ts": "", "ts-fail": "nvidia.com/gpu.shared", "mps": "nvidia.com/gpu", "mps-lets": "", "no-sharing": "", "missing-key": "",
		"": "nvidia.com/gpu", // unlabelled: the default key, mps
	} {
		labels := map[string]string{}
		if label != "" {
			labels[DevicePluginConfigLabel] = label
		}
		names, why := s.OneEach(labels)
		if got := fmt.Sprint(names); (want == "" && len(names) != 0) || (want != "" && got != "["+want+"]") || (want != "" && !strings.Contains(why, "ConfigMap gpu-operator/dp")) {
			t.Errorf("label %q: %v %q, want %s", label, names, why, want)
		}
	}
	if names, _ := (&Sharing{}).OneEach(nil); names != nil {
		t.Errorf("no default, no label: %v", names)
	}
	bad := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "gpu-operator", Name: "dp"}, Data: map[string]string{"any": "version: [v1"}}
	if _, err := NewSharing(bad, ""); err == nil || !strings.Contains(err.Error(), "ConfigMap gpu-operator/dp, key any: not a device plugin config") {
		t.Errorf("bad config: %v", err)
	}
}

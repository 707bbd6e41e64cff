package dra

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// node is a GPU node as GFD labels it (labels of the shapes NVIDIA's docs
// print: cloud-native-docs gpu-operator-mig.rst, gpu-sharing.rst).
func node(name, product string, count string, extra ...string) *corev1.Node {
	l := map[string]string{"nvidia.com/gpu.present": "true", "nvidia.com/gpu.product": product, "nvidia.com/gpu.count": count,
		"nvidia.com/gpu.family": "ampere", "nvidia.com/gpu.compute.major": "8", "nvidia.com/gpu.compute.minor": "0",
		"nvidia.com/gpu.memory": "40960", "nvidia.com/cuda.driver-version.major": "580", "nvidia.com/cuda.driver-version.minor": "95",
		"nvidia.com/cuda.driver-version.revision": "05"}
	for i := 0; i+1 < len(extra); i += 2 {
		l[extra[i]] = extra[i+1]
	}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}}
}

func judgeOf(nodes ...*corev1.Node) *Judge {
	byNode := map[string][]Device{}
	for _, n := range nodes {
		byNode[n.Name] = FromNodeLabels(n)
	}
	return NewJudge(Classes(nil), byNode, FromLabels)
}

func exactly(class string, count int64, exprs ...string) []Request {
	r := Request{Name: "gpu", Class: class, Count: count, Field: []any{"spec"}}
	r.Selectors = exprs
	return []Request{r}
}

// The selectors of NVIDIA's DRA driver's own guides (kubernetes-sigs/
// dra-driver-nvidia-gpu site/content/docs/guides/gpu-allocation/
// allocating-gpus.md L31-56, mig.md L229-272) against an A100 fleet, and
// the H100 selector of issue 37 against it and against an H100 node.
func TestClaimsAgainstDevicesFromLabels(t *testing.T) {
	a100 := judgeOf(node("a100-0", "NVIDIA-A100-SXM4-40GB", "8"), node("a100-1", "NVIDIA-A100-SXM4-40GB", "8"))
	h100 := judgeOf(node("h100-0", "NVIDIA-H100-80GB-HBM3", "8", "nvidia.com/gpu.family", "hopper", "nvidia.com/gpu.compute.major", "9", "nvidia.com/gpu.memory", "81559"))
	for name, c := range map[string]struct {
		j    *Judge
		reqs []Request
		fits bool
		want string
	}{
		"any GPU":                 {a100, exactly("gpu.nvidia.com", 1), true, ""},
		"the guide's A100 regexp": {a100, exactly("gpu.nvidia.com", 1, "device.attributes['gpu.nvidia.com'].productName.lowerAscii().matches('^.*a100.*$')"), true, ""},
		"more than 40Gi of memory": {a100, exactly("gpu.nvidia.com", 1, "device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity('40Gi'))"), false,
			"at most 0 on one node"},
		"H100 on an A100 fleet": {a100, exactly("gpu.nvidia.com", 1, "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H100 80GB HBM3'"), false,
			"the nodes publish 8 × NVIDIA A100 SXM4 40GB on 2 node(s) (labels)"},
		"H100 on an H100 node": {h100, exactly("gpu.nvidia.com", 1, "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H100 80GB HBM3'"), true, ""},
		"architecture and driver": {h100, exactly("gpu.nvidia.com", 8, "device.attributes['gpu.nvidia.com'].architecture == 'Hopper'",
			"device.attributes['gpu.nvidia.com'].driverVersion.compareTo(semver('580.0.0')) >= 0"), true, ""},
		"nine on a node of eight": {h100, exactly("gpu.nvidia.com", 9), false, "asks for 9 device(s) of class gpu.nvidia.com, and no node has them (at most 8 on one node)"},
		// gpu-test6.yaml selects on index, which the driver stopped
		// publishing (NVIDIA/k8s-dra-driver-gpu 36fc80ab): no device passes.
		"the demo's index attribute": {a100, exactly("gpu.nvidia.com", 1, "device.attributes['gpu.nvidia.com'].productName.lowerAscii().matches('^.*a100.*$') && (device.attributes['gpu.nvidia.com'].index == 0 || device.attributes['gpu.nvidia.com'].index == 2)"), false,
			"the selector fails on the devices: no such key: index"},
		"MIG on unpartitioned GPUs": {a100, exactly("mig.nvidia.com", 1, "device.attributes['gpu.nvidia.com'].profile == '1g.5gb'"), false,
			"no node publishes a device of class mig.nvidia.com"},
		"a class no one installed":                    {a100, exactly("gpu.example.com", 1), false, "DeviceClass gpu.example.com, which is not among the inputs"},
		"a selector that does not compile":            {a100, exactly("gpu.nvidia.com", 1, "device.attributes['gpu.nvidia.com'].productName =="), false, "does not compile"},
		"a selector longer than the API server takes": {a100, exactly("gpu.nvidia.com", 1, strings.Repeat("true && ", 2000)+"true"), false, "longer than the API server accepts (10240)"},
	} {
		v := c.j.Claim(c.reqs)
		if v.Fits != c.fits || !strings.Contains(v.Message, c.want) {
			t.Errorf("%s: fits %v %q; want %v and %q", name, v.Fits, v.Message, c.fits, c.want)
		}
	}
}

// MIG devices under the mixed strategy (gpu-operator-mig.rst L227-250:
// all-balanced on H100) as mig.nvidia.com devices with their profile.
func TestMIGDevicesFromLabels(t *testing.T) {
	n := node("h100", "NVIDIA-H100-80GB-HBM3", "1", "nvidia.com/mig.strategy", "mixed", "nvidia.com/mig-1g.10gb.count", "2",
		"nvidia.com/mig-2g.20gb.count", "1", "nvidia.com/mig-3g.40gb.count", "1")
	j := judgeOf(n)
	if v := j.Claim(exactly("mig.nvidia.com", 2, "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'")); !v.Fits {
		t.Errorf("two 1g.10gb: %s", v.Message)
	}
	if v := j.Claim(exactly("mig.nvidia.com", 1, "device.attributes['gpu.nvidia.com'].profile == '7g.80gb'")); v.Fits {
		t.Error("a 7g.80gb the node does not have fits")
	}
	if v := j.Claim(exactly("gpu.nvidia.com", 1)); v.Fits {
		t.Error("a whole GPU of a partitioned node fits")
	}
}

// Devices of a ResourceSlice as the driver publishes them
// (resourceslice-attributes.md L42-73) are judged as they are.
func TestDevicesFromSlices(t *testing.T) {
	s := func(v string) *string { return &v }
	node := "gpu-node-1"
	slice := &resourcev1.ResourceSlice{Spec: resourcev1.ResourceSliceSpec{Driver: Driver, NodeName: &node, Devices: []resourcev1.Device{{
		Name: "gpu-0",
		Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{
			"type": {StringValue: s("gpu")}, "productName": {StringValue: s("NVIDIA A100-PCIE-40GB")}, "architecture": {StringValue: s("Ampere")},
			"driverVersion": {VersionValue: s("580.126.20")},
		},
		Capacity: map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{"memory": {Value: resource.MustParse("40Gi")}},
	}}}}
	j := NewJudge(Classes(nil), FromResourceSlices([]*resourcev1.ResourceSlice{slice}), FromSlices)
	if v := j.Claim(exactly("gpu.nvidia.com", 1, "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA A100-PCIE-40GB'")); !v.Fits {
		t.Errorf("%s", v.Message)
	}
	if v := j.Claim(exactly("gpu.nvidia.com", 1, "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA A100 PCIE 40GB'")); v.Fits {
		t.Error("a published name is taken as it is, not respelled")
	}
}

package dra

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func mappingClass(name, resource, expr string, created time.Time) *resourcev1.DeviceClass {
	return &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created)},
		Spec: resourcev1.DeviceClassSpec{ExtendedResourceName: &resource,
			Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: expr}}}}}
}

// Which class a resource maps to when two name it (the later created, at
// the same time the first by name), and how many of a node's devices it
// gives: an H100 node from GFD's labels holds 8 of gpu.nvidia.com's and
// none of a class that asks for A100s.
func TestExtendedOffers(t *testing.T) {
	gpu := "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"
	a100 := gpu + " && device.attributes['gpu.nvidia.com'].productName.startsWith('NVIDIA A100')"
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	all := func(corev1.ResourceName) bool { return true }
	for _, c := range []struct {
		classes []*resourcev1.DeviceClass
		want    string
		devices int64
	}{
		{[]*resourcev1.DeviceClass{mappingClass("gpu.nvidia.com", "nvidia.com/gpu", gpu, t0)}, "gpu.nvidia.com", 8},
		{[]*resourcev1.DeviceClass{mappingClass("gpu.nvidia.com", "nvidia.com/gpu", gpu, t0), mappingClass("a100s", "nvidia.com/gpu", a100, t0.Add(time.Hour))}, "a100s", 0},
		{[]*resourcev1.DeviceClass{mappingClass("zz", "nvidia.com/gpu", gpu, t0), mappingClass("a100s", "nvidia.com/gpu", a100, t0)}, "a100s", 0},
		// Classes the API server refuses (a selector that does not
		// compile, one too costly) are never created: the valid one maps.
		{[]*resourcev1.DeviceClass{mappingClass("gpu.nvidia.com", "nvidia.com/gpu", gpu, t0),
			mappingClass("broken", "nvidia.com/gpu", "device.driver == ", t0.Add(time.Hour)),
			mappingClass("costly", "nvidia.com/gpu", "[0,1,2,3,4,5,6,7,8,9].all(x, [0,1,2,3,4,5,6,7,8,9].all(y, [0,1,2,3,4,5,6,7,8,9].all(z, device.attributes['gpu.nvidia.com'].productName.matches(string(x) + string(y) + string(z)))))", t0.Add(2*time.Hour))}, "gpu.nvidia.com", 8},
	} {
		mapped := ExtendedClasses(c.classes, all)
		if got := mapped.Class("nvidia.com/gpu"); got == nil || got.Name != c.want {
			t.Errorf("mapped to %v, want %s", got, c.want)
			continue
		}
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "h100", Labels: map[string]string{
			"nvidia.com/gpu.count": "8", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}}}
		offers := mapped.Offers(map[string][]Device{"h100": FromNodeLabels(node), "cpu": nil})
		if got := offers["h100"]["nvidia.com/gpu"]; got != c.devices {
			t.Errorf("%s: %d devices, want %d", c.want, got, c.devices)
		}
		if _, ok := offers["cpu"]; ok {
			t.Errorf("a node of no device offers %v", offers["cpu"])
		}
	}
	if ExtendedClasses(nil, all).Offers(nil) != nil {
		t.Error("no class, yet offers")
	}
}

package gpures

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func migConfigMap(text string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "gpu-operator", Name: "custom-mig-config"},
		Data: map[string]string{MIGConfigKey: text}}
}

// customMIG is the MIG page's custom config (five-1g-one-2g), with
// configs in the shapes of the operator's default one: a device filter
// per model (its A100-40GB and 80GB IDs, and B300's, which drvcheck has
// no model for), indices, and MIG on half the GPUs.
const customMIG = `version: v1
mig-configs:
  all-disabled:
    - devices: all
      mig-enabled: false
  five-1g-one-2g:
    - devices: all
      mig-enabled: true
      mig-devices: {"1g.10gb": 5, "2g.20gb": 1}
  by-model:
    - device-filter: ["0x20B010DE", "0x20B110DE"]
      devices: all
      mig-enabled: true
      mig-devices: {"1g.5gb": 7}
    - device-filter: "0x233010de"
      devices: all
      mig-enabled: true
      mig-devices: {"3g.40gb": 2}
    - device-filter: ["0x318210DE"]
      devices: all
      mig-enabled: true
      mig-devices: {"1g.34gb": 7}
  half:
    - devices: [0, 1, 2, 3]
      mig-enabled: false
    - devices: [4, 5, 6, 7]
      mig-enabled: true
      mig-devices: {"1g.10gb+me": 1}
  too-many:
    - devices: all
      mig-enabled: true
      mig-devices: {"1g.10gb": 8}
  wrong-model:
    - devices: all
      mig-enabled: true
      mig-devices: {"1g.5gb": 7}
  twice:
    - devices: all
      mig-enabled: false
    - devices: [0]
      mig-enabled: true
      mig-devices: {"7g.80gb": 1}
`

func TestMIGConfigsLayout(t *testing.T) {
	m, err := NewMIGConfigs(migConfigMap(customMIG))
	if err != nil {
		t.Fatal(err)
	}
	const h100, a100 = "NVIDIA-H100-80GB-HBM3", "A100-SXM4-40GB"
	for _, c := range []struct {
		config, product string
		gpus            int64
		want            string // profiles and whole GPUs, or "unknown"
	}{
		{"five-1g-one-2g", h100, 8, "map[1g.10gb:40 2g.20gb:8] whole 0"},
		{"all-disabled", h100, 8, "map[] whole 8"},
		{"by-model", a100, 2, "map[1g.5gb:14] whole 0"},
		{"by-model", h100, 1, "map[3g.40gb:2] whole 0"},
		{"by-model", "Tesla-T4", 1, "unknown"},    // a model drvcheck does not know
		{"by-model", "NVIDIA-H200", 1, "unknown"}, // no entry selects it: it keeps what it has
		{"half", h100, 8, "map[1g.10gb.me:4] whole 4"},
		{"half", h100, 4, "map[] whole 4"},
		{"half", h100, 6, "map[1g.10gb.me:2] whole 4"}, // indices past the node's GPUs select none
		{"twice", h100, 2, "unknown"},                  // GPU 0 selected twice
		{"missing", h100, 1, "unknown"},
		{"too-many", h100, 1, "unknown"},    // 8 of 1g.10gb: mig-manager fails, the node keeps its layout
		{"wrong-model", h100, 1, "unknown"}, // 1g.5gb is an A100 40GB profile
		{"wrong-model", a100, 1, "map[1g.5gb:7] whole 0"},
	} {
		layout, ok := m.nodeLayout(c.config, c.product, c.gpus)
		got := "unknown"
		if ok {
			got = fmt.Sprintf("%v whole %d", layout.profiles, layout.whole)
		}
		if got != c.want {
			t.Errorf("%s on %d %s: %s, want %s", c.config, c.gpus, c.product, got, c.want)
		}
	}
	if config, n, gpus := m.ConfigFor(h100, "3g.40gb"); config != "by-model" || n != 2 || gpus != 1 {
		t.Errorf("3g.40gb on H100: %q %d on %d", config, n, gpus)
	}
	if config, _, _ := m.ConfigFor(a100, "3g.40gb"); config != "" {
		t.Errorf("3g.40gb on A100 40GB: %q", config)
	}
	// half partitions GPUs 4 to 7 alone: a node of 8 has 4 such devices.
	if config, n, gpus := m.ConfigFor(h100, "1g.10gb.me"); config != "half" || n != 4 || gpus != 8 {
		t.Errorf("1g.10gb.me on H100: %q %d on %d", config, n, gpus)
	}
	if config := m.Disabling(h100); config != "all-disabled" {
		t.Errorf("disabling: %q", config)
	}
}

// Every device ID belongs to a model drvcheck knows.
func TestMIGDeviceIDsNameModels(t *testing.T) {
	for _, id := range slices.Sorted(maps.Keys(migDeviceIDs)) {
		if !slices.ContainsFunc(migModels, func(m migModel) bool { return m.name == migDeviceIDs[id] }) {
			t.Errorf("%s: no model %q", id, migDeviceIDs[id])
		}
	}
}

// A pending custom config under both strategies, read from the node's
// labels: what the node will offer once the MIG manager applies it.
func TestCustomMIGConfigOffers(t *testing.T) {
	m, err := NewMIGConfigs(migConfigMap(customMIG))
	if err != nil {
		t.Fatal(err)
	}
	labels := func(strategy, product, config string) map[string]string {
		return map[string]string{"nvidia.com/gpu.count": "8", "nvidia.com/gpu.product": product, MIGStrategy: strategy,
			MIGConfig: config, MIGConfigState: "pending", "nvidia.com/mig-1g.10gb.count": "56"}
	}
	for _, c := range []struct {
		labels map[string]string
		want   string
	}{
		{labels("mixed", "NVIDIA-H100-80GB-HBM3", "five-1g-one-2g"), "map[nvidia.com/gpu:0 nvidia.com/mig-1g.10gb:40 nvidia.com/mig-2g.20gb:8]"},
		{labels("mixed", "NVIDIA-H100-80GB-HBM3", "half"), "map[nvidia.com/gpu:4 nvidia.com/mig-1g.10gb.me:4]"},
		{labels("single", "NVIDIA-H100-80GB-HBM3", "by-model"), "map[nvidia.com/gpu:16]"},
		{labels("single", "NVIDIA-H100-80GB-HBM3", "five-1g-one-2g"), "map[nvidia.com/gpu:0]"}, // two profiles: INVALID
		{labels("single", "NVIDIA-H100-80GB-HBM3", "all-disabled"), "map[nvidia.com/gpu:8]"},
		// Not a config of the ConfigMap, pending: nothing is known (the
		// labels are the old layout's, and mig-manager will fail).
		{labels("mixed", "NVIDIA-H100-80GB-HBM3", "all-3g.40gb"), "map[]"},
	} {
		o := OfferOf(&corev1.Node{ObjectMeta: metaWith(c.labels)}, m)
		if got := fmt.Sprint(o.Resources); got != c.want {
			t.Errorf("%s %s: %s, want %s", c.labels[MIGStrategy], c.labels[MIGConfig], got, c.want)
		}
	}
}

// What mig-parted refuses to parse is an error naming the ConfigMap and
// the config (api/spec/v1/spec.go).
func TestNewMIGConfigsRefuses(t *testing.T) {
	for text, want := range map[string]string{
		"mig-configs: {}":                                                                               `mig-parted reads version v1, not ""`,
		"version: v2\nmig-configs: {}":                                                                  `not "v2"`,
		"version: v1\nmig-configs: {a: []}":                                                             "config a: no entry",
		"version: v1\nmig-configs: {a: [{mig-enabled: false}]}":                                         "config a, entry 0: devices and mig-enabled are required",
		"version: v1\nmig-configs: {a: [{devices: some, mig-enabled: false}]}":                          "neither all nor a list",
		"version: v1\nmig-configs: {a: [{devices: all, mig-enabled: true}]}":                            "mig-devices is required",
		"version: v1\nmig-configs: {a: [{devices: all, mig-enabled: false, mig-devices: {1g.5gb: 1}}]}": "mig-devices given with mig-enabled false",
		"version: v1\nmig-configs: {a: [{devices: all, mig-enabled: false, extra: 1}]}":                 "not a mig-parted config",
		"version: v1\nmig-configs: {a: [{devices: all, mig-enabled: false, device-filter: 3}]}":         "device-filter",
		"version: [v1":                 "not a mig-parted config",
		"version: v1\nmig-configs: {}": "at least one entry in mig-configs",
		"version: v1\nmig-configs: {a: [{devices: all, mig-enabled: true, mig-devices: {foo: 1}}]}": `"foo" is not a MIG profile`,
	} {
		_, err := NewMIGConfigs(migConfigMap(text))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "ConfigMap gpu-operator/custom-mig-config") {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
	if _, err := NewMIGConfigs(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}); err == nil || !strings.Contains(err.Error(), "no key config.yaml") {
		t.Errorf("no key: %v", err)
	}
}

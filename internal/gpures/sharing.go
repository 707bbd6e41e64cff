package gpures

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// DevicePluginConfigLabel picks a node's key of the device plugin's
// config ConfigMap (k8s-device-plugin v0.20.0 cmd/config-manager/main.go:49).
const DevicePluginConfigLabel = "nvidia.com/device-plugin.config"

// pluginConfig is what drvcheck reads of the device plugin's config file
// (k8s-device-plugin v0.20.0 api/config/v1): how it shares GPUs.
type pluginConfig struct {
	Version string `json:"version"`
	Sharing struct {
		TimeSlicing *replicated `json:"timeSlicing"`
		MPS         *replicated `json:"mps"`
	} `json:"sharing"`
}

// replicated is a sharing strategy's options (api/config/v1/replicas.go:29-33).
type replicated struct {
	RenameByDefault            bool  `json:"renameByDefault"`
	FailRequestsGreaterThanOne *bool `json:"failRequestsGreaterThanOne"`
	Resources                  []struct {
		Name     string `json:"name"`
		Replicas int    `json:"replicas"`
	} `json:"resources"`
}

// Sharing is the device plugin's configs that the inputs hold: the
// ConfigMap a ClusterPolicy names (spec.devicePlugin.config.name), whose
// key for a node is its nvidia.com/device-plugin.config label, else the
// ClusterPolicy's default, else none (the operator starts the config
// manager with FALLBACK_STRATEGIES=empty, gpu-operator
// controllers/object_controls.go:2893-2894 and 2929-2930 at a22dbf671,
// the day after v26.7.0: no sharing).
type Sharing struct {
	source  string                           // "ConfigMap NS/NAME", for messages
	oneEach map[string][]corev1.ResourceName // by key: the resources a container may ask one of
	why     map[string]string                // by key: what of the config says so
	def     string
}

// NewSharing reads the configs of cm, the default key def.
func NewSharing(cm *corev1.ConfigMap, def string) (*Sharing, error) {
	s := &Sharing{source: "ConfigMap " + cm.Namespace + "/" + cm.Name, oneEach: map[string][]corev1.ResourceName{},
		why: map[string]string{}, def: def}
	for _, key := range slices.Sorted(maps.Keys(cm.Data)) {
		var c pluginConfig
		if err := yaml.Unmarshal([]byte(cm.Data[key]), &c); err != nil {
			return nil, fmt.Errorf("%s, key %s: not a device plugin config: %v", s.source, key, err)
		}
		s.oneEach[key], s.why[key] = c.oneEach()
	}
	return s, nil
}

// oneEach are the resources whose requests of more than one per container
// the plugin fails at admission, and what of the config says so: every resource
// a sharing strategy lists is handed out as replicas, renamed
// <name>.shared under renameByDefault (api/config/v1/replicas.go:204-208),
// and a request of more than one replica fails when
// failRequestsGreaterThanOne is set (internal/rm/rm.go:92-105); MPS sets
// it unless the config says false (api/config/v1/config.go:72-76), as
// every release before did.
func (c pluginConfig) oneEach() ([]corev1.ResourceName, string) {
	r, why := c.Sharing.TimeSlicing, "time-slicing with failRequestsGreaterThanOne"
	fails := r != nil && r.FailRequestsGreaterThanOne != nil && *r.FailRequestsGreaterThanOne
	if c.Sharing.MPS != nil {
		r, why = c.Sharing.MPS, "MPS, which fails more than one unless failRequestsGreaterThanOne is false"
		fails = r.FailRequestsGreaterThanOne == nil || *r.FailRequestsGreaterThanOne
	}
	if r == nil || !fails {
		return nil, ""
	}
	var out []corev1.ResourceName
	for _, res := range r.Resources {
		name := res.Name
		if r.RenameByDefault {
			name += sharedName
		}
		out = append(out, corev1.ResourceName(name))
	}
	return out, why
}

// OneEach is, for a node of these labels, the GPU resources a container
// may ask no more than one of, and why; nil when the node's config
// shares nothing so, or names a key the ConfigMap lacks (the config
// manager then fails, and the node offers nothing drvcheck can say).
func (s *Sharing) OneEach(labels map[string]string) ([]corev1.ResourceName, string) {
	if s == nil {
		return nil, ""
	}
	key, ok := labels[DevicePluginConfigLabel]
	if !ok || key == "" {
		key = s.def
	}
	names := s.oneEach[key]
	if len(names) == 0 {
		return nil, ""
	}
	return names, fmt.Sprintf("the device plugin shares GPUs by %s (%s, key %s)", s.why[key], s.source, key)
}

// OneEachKey writes what OneEach says into an offer's key.
func oneEachKey(names []corev1.ResourceName, why string) string {
	if len(names) == 0 {
		return ""
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = string(n)
	}
	return "\x00one:" + strings.Join(parts, ",") + "\x00" + why
}

package gpures

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// MIGConfigKey is the key of a custom mig-parted ConfigMap: the operator
// mounts it as the MIG manager's CONFIG_FILE (gpu-operator
// controllers/object_controls.go:2070-2091 at a22dbf671, the day after
// v26.7.0).
const MIGConfigKey = "config.yaml"

// MIGConfigs is the custom mig-parted config a ClusterPolicy names
// (spec.migManager.config.name). With one, the MIG manager applies only
// its configs: the operator's default ConfigMap is no longer mounted
// (object_controls.go:2077-2091), so a node's nvidia.com/mig.config must
// name one of these.
type MIGConfigs struct {
	source  string // "ConfigMap NS/NAME", for messages
	configs map[string][]migEntry
	unknown bool // named, but not among the inputs (UnknownMIGConfigs)
}

// UnknownMIGConfigs stands for a custom config the inputs do not hold:
// the operator's configs are not there to be applied, and its own are not
// known, so no pending layout or config is said.
func UnknownMIGConfigs(source string) *MIGConfigs {
	return &MIGConfigs{source: source, configs: map[string][]migEntry{}, unknown: true}
}

// Known says whether the configs were read.
func (m *MIGConfigs) Known() bool { return !m.unknown }

// migEntry is one entry of a config (mig-parted api/spec/v1/spec.go:
// MigConfigSpec): the GPUs it selects and the MIG devices each gets.
type migEntry struct {
	filter  []string     // PCI device IDs (0x20B010DE); nil selects every model
	all     bool         // devices: all
	indices map[int]bool // devices: [0, 1, ...], as a set (a list may repeat)
	enabled bool
	devices map[string]int64 // profile (as the resource names it) -> devices per GPU
}

// migSpec and migSpecEntry are the file as mig-parted reads it
// (api/spec/v1/spec.go): version v1, each config a list of entries;
// device-filter a string or a list, devices "all" or indices.
type migSpec struct {
	Version    string                    `json:"version"`
	MigConfigs map[string][]migSpecEntry `json:"mig-configs"`
}

type migSpecEntry struct {
	DeviceFilter json.RawMessage  `json:"device-filter"`
	Devices      json.RawMessage  `json:"devices"`
	MigEnabled   *bool            `json:"mig-enabled"`
	MigDevices   map[string]int64 `json:"mig-devices"`
}

// NewMIGConfigs reads the mig-parted config of cm. What mig-parted would
// refuse to parse is an error naming the ConfigMap and the config: the MIG
// manager fails on every node that asks for a config.
func NewMIGConfigs(cm *corev1.ConfigMap) (*MIGConfigs, error) {
	source := "ConfigMap " + cm.Namespace + "/" + cm.Name
	text, ok := cm.Data[MIGConfigKey]
	if !ok {
		return nil, fmt.Errorf("%s: no key %s, which the MIG manager reads", source, MIGConfigKey)
	}
	var spec migSpec
	if err := yaml.UnmarshalStrict([]byte(text), &spec); err != nil {
		return nil, fmt.Errorf("%s, key %s: not a mig-parted config: %v", source, MIGConfigKey, err)
	}
	if spec.Version != "v1" {
		return nil, fmt.Errorf("%s, key %s: mig-parted reads version v1, not %q", source, MIGConfigKey, spec.Version)
	}
	if len(spec.MigConfigs) == 0 {
		return nil, fmt.Errorf("%s, key %s: mig-parted needs at least one entry in mig-configs", source, MIGConfigKey)
	}
	m := &MIGConfigs{source: source, configs: map[string][]migEntry{}}
	for _, name := range slices.Sorted(maps.Keys(spec.MigConfigs)) {
		entries := spec.MigConfigs[name]
		if len(entries) == 0 {
			return nil, fmt.Errorf("%s, config %s: no entry", source, name)
		}
		for i, e := range entries {
			entry, err := e.entry()
			if err != nil {
				return nil, fmt.Errorf("%s, config %s, entry %d: %v", source, name, i, err)
			}
			m.configs[name] = append(m.configs[name], entry)
		}
	}
	return m, nil
}

// entry checks an entry as mig-parted does (MigConfigSpec.UnmarshalJSON).
func (e migSpecEntry) entry() (migEntry, error) {
	var out migEntry
	if e.MigEnabled == nil || e.Devices == nil {
		return out, fmt.Errorf("devices and mig-enabled are required")
	}
	out.enabled = *e.MigEnabled
	var all string
	if err := json.Unmarshal(e.Devices, &all); err == nil {
		if all != "all" {
			return out, fmt.Errorf("devices: %q is neither all nor a list of indices", all)
		}
		out.all = true
	} else {
		var list []int
		if err := json.Unmarshal(e.Devices, &list); err != nil {
			return out, fmt.Errorf("devices: neither all nor a list of indices")
		}
		out.indices = make(map[int]bool, min(len(list), maxGPUs))
		for _, i := range list {
			out.indices[i] = true
		}
	}
	if e.DeviceFilter != nil {
		var one string
		if err := json.Unmarshal(e.DeviceFilter, &one); err == nil {
			out.filter = []string{one}
		} else if err := json.Unmarshal(e.DeviceFilter, &out.filter); err != nil {
			return out, fmt.Errorf("device-filter: neither a device ID nor a list of them")
		}
		for i, id := range out.filter {
			out.filter[i] = strings.ToUpper(strings.TrimPrefix(strings.ToLower(id), "0x"))
		}
	}
	switch {
	case out.enabled && e.MigDevices == nil:
		return out, fmt.Errorf("mig-devices is required when mig-enabled is true")
	case !out.enabled && len(e.MigDevices) > 0:
		return out, fmt.Errorf("mig-devices given with mig-enabled false")
	}
	out.devices = map[string]int64{}
	for profile, n := range e.MigDevices {
		if n < 0 || n > maxCount {
			return out, fmt.Errorf("mig-devices: %d of %s", n, profile)
		}
		if !migProfileName.MatchString(profile) {
			return out, fmt.Errorf("mig-devices: %q is not a MIG profile (as 1g.10gb, 1c.2g.20gb or 1g.10gb+me)", profile)
		}
		// The device plugin names a profile with + as . (k8s-device-plugin
		// v0.20.0 internal/rm/rm.go:145): 1g.5gb+me is mig-1g.5gb.me.
		out.devices[strings.ReplaceAll(profile, "+", ".")] += n
	}
	return out, nil
}

// nodeLayout is what one of the configs makes of a node's gpus GPUs of
// the product: the MIG devices of each profile on the whole node, and
// the GPUs left whole (MIG disabled). False when drvcheck cannot tell:
// the config is not there, an entry's device filter names IDs of no model
// drvcheck knows, a GPU is selected by no entry (it keeps what it has) or
// by two.
func (m *MIGConfigs) nodeLayout(config, product string, gpus int64) (nodeMIG, bool) {
	entries, ok := m.configs[config]
	if !ok || gpus <= 0 || gpus > maxGPUs {
		return nodeMIG{}, false
	}
	model := migModelOf(product)
	chosen := make([]*migEntry, gpus)
	for i := range entries {
		e := &entries[i]
		applies, known := e.selects(model)
		if !known {
			return nodeMIG{}, false
		}
		if !applies {
			continue
		}
		for gpu := range gpus {
			if !e.all && !e.indices[int(gpu)] {
				continue
			}
			if chosen[gpu] != nil {
				return nodeMIG{}, false
			}
			chosen[gpu] = e
		}
	}
	for _, e := range chosen {
		if e != nil && e.enabled && !model.fits(e.devices) {
			return nodeMIG{}, false // mig-manager fails to apply it: the node keeps what it has
		}
	}
	out := nodeMIG{profiles: map[string]int64{}}
	for _, e := range chosen {
		switch {
		case e == nil:
			return nodeMIG{}, false
		case !e.enabled:
			out.whole++
		default:
			for profile, n := range e.devices {
				out.profiles[profile] += n
			}
			out.single = append(out.single, e.devices)
		}
	}
	return out, true
}

// migProfileName is the shape of a MIG profile mig-parted accepts
// (pkg/types/mig_profile.go: [<C>c.]<G>g.<M>gb[+attr[.attr]...]).
var migProfileName = regexp.MustCompile(`^([0-9]+c\.)?[0-9]+g\.[0-9]+gb(\+[a-z]+(\.[a-z]+)*)*$`)

// maxGPUs bounds the GPUs a node's count label may claim for a layout.
const maxGPUs = 1024

// nodeMIG is a node's layout under a mig-parted config.
type nodeMIG struct {
	profiles map[string]int64   // MIG devices of each profile, on the node
	whole    int64              // GPUs with MIG disabled
	single   []map[string]int64 // each MIG GPU's devices, for the single strategy
}

// selects says whether the entry applies to GPUs of the model, and
// whether drvcheck can tell: a device filter applies when it names one of
// the model's PCI device IDs (migDeviceIDs); for a model drvcheck does
// not know, a filter says nothing.
func (e *migEntry) selects(model *migModel) (applies, known bool) {
	if e.filter == nil {
		return true, true
	}
	if model == nil {
		return false, false
	}
	for _, id := range e.filter {
		if migDeviceIDs[id] == model.name {
			return true, true
		}
	}
	return false, true
}

// Has says whether the configs hold one of that name; nil holds none.
func (m *MIGConfigs) Has(config string) bool {
	if m == nil {
		return false
	}
	_, ok := m.configs[config]
	return ok
}

// layoutSizes are the node sizes, in GPUs, a config is tried on for a
// fix: a config may partition some GPUs of a node alone (devices: [1]).
var layoutSizes = []int64{1, 2, 4, 8}

// ConfigFor is the config that gives a node of the product the most
// devices of the profile per GPU, how many it gives, and on a node of how
// many GPUs (the smallest size it gives them on); "" when none does.
// Configs are tried in name order, so a tie goes to the first.
func (m *MIGConfigs) ConfigFor(product, profile string) (config string, n, gpus int64) {
	for _, name := range slices.Sorted(maps.Keys(m.configs)) {
		for _, size := range layoutSizes {
			layout, ok := m.nodeLayout(name, product, size)
			got := layout.profiles[profile]
			if !ok || got == 0 {
				continue
			}
			if config == "" || got*gpus > n*size {
				config, n, gpus = name, got, size
			}
			break
		}
	}
	return config, n, gpus
}

// Disabling is a config that leaves every GPU of the product whole on
// each node size its entries cover, in name order, or "".
func (m *MIGConfigs) Disabling(product string) string {
	for _, name := range slices.Sorted(maps.Keys(m.configs)) {
		covered, whole := false, true
		for _, size := range layoutSizes {
			if layout, ok := m.nodeLayout(name, product, size); ok {
				covered, whole = true, whole && layout.whole == size
			}
		}
		if covered && whole {
			return name
		}
	}
	return ""
}

// Source names the ConfigMap, for messages.
func (m *MIGConfigs) Source() string { return m.source }

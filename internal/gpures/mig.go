package gpures

import (
	"slices"
	"strconv"
	"strings"
)

// The MIG profiles each GPU model offers, with the most of each one GPU
// holds: the GPU Operator's default mig-parted configs at v26.7.0
// (assets/state-mig-manager/0400_configmap.yaml; lines per model below),
// which v26.x's mig-manager writes anew from the hardware, one config
// all-<profile> per profile with its most instances and + written as .
// (mig-parted v0.15.0 pkg/mig/builder/builder.go:89-139, 102-103).
// B200's 1g.45gb/4g.90gb/7g.180gb and GB200's 1g.47gb/4g.93gb/7g.186gb
// are placed by their sizes: the file lists them under other comments.
type migModel struct {
	name     string
	matches  func(product string) bool
	profiles []migProfile // largest count first, as the configs list them
	balanced []migProfile // all-balanced on one GPU
}

type migProfile struct {
	name  string
	count int64
}

func has(product string, all ...string) bool {
	for _, s := range all {
		if !strings.Contains(product, s) {
			return false
		}
	}
	return true
}

var migModels = []migModel{
	{"A100/A800 40GB", func(p string) bool { return (has(p, "A100") || has(p, "A800")) && has(p, "40GB") }, // lines 20-50, 121-125, 422
		[]migProfile{{"1g.5gb", 7}, {"1g.10gb", 4}, {"2g.10gb", 3}, {"3g.20gb", 2}, {"4g.20gb", 1}, {"7g.40gb", 1}},
		[]migProfile{{"1g.5gb", 2}, {"2g.10gb", 1}, {"3g.20gb", 1}}},
	{"A100/A800/H100/H800 80GB", func(p string) bool {
		return (has(p, "A100") || has(p, "A800")) && has(p, "80GB") || (has(p, "H100") || has(p, "H800")) && !has(p, "NVL") && (has(p, "80GB") || has(p, "PCIe"))
	}, // lines 112-118, 135, 161-179, 413
		[]migProfile{{"1g.10gb", 7}, {"1g.20gb", 4}, {"2g.20gb", 3}, {"3g.40gb", 2}, {"4g.40gb", 1}, {"7g.80gb", 1}},
		[]migProfile{{"1g.10gb", 2}, {"2g.20gb", 1}, {"3g.40gb", 1}}},
	{"H100/H800 NVL", func(p string) bool { return (has(p, "H100") || has(p, "H800")) && has(p, "NVL") }, // lines 217-278, 404
		[]migProfile{{"1g.12gb", 7}, {"1g.24gb", 4}, {"2g.24gb", 3}, {"3g.47gb", 2}, {"4g.47gb", 1}, {"7g.94gb", 1}},
		[]migProfile{{"1g.12gb", 2}, {"2g.24gb", 1}, {"3g.47gb", 1}}},
	{"GH200 144G", func(p string) bool { return has(p, "GH200") && has(p, "144") }, // lines 466-472, 517-541, 386
		[]migProfile{{"1g.18gb", 7}, {"1g.36gb", 4}, {"2g.36gb", 3}, {"3g.72gb", 2}, {"4g.72gb", 1}, {"7g.144gb", 1}},
		[]migProfile{{"1g.18gb", 2}, {"2g.36gb", 1}, {"3g.72gb", 1}}},
	{"GH200 96GB, H100 96GB, H20", func(p string) bool {
		return has(p, "GH200") || has(p, "H100") && has(p, "96GB") || has(p, "H20") && !has(p, "H200")
	},
		// lines 217-251, 285-333, 439
		[]migProfile{{"1g.12gb", 7}, {"1g.24gb", 4}, {"2g.24gb", 3}, {"3g.48gb", 2}, {"4g.48gb", 1}, {"7g.96gb", 1}},
		[]migProfile{{"1g.12gb", 2}, {"2g.24gb", 1}, {"3g.48gb", 1}}},
	{"H200", func(p string) bool { return has(p, "H200") && !has(p, "GH200") }, // lines 466, 478-510, 395
		[]migProfile{{"1g.18gb", 7}, {"1g.35gb", 4}, {"2g.35gb", 3}, {"3g.71gb", 2}, {"4g.71gb", 1}, {"7g.141gb", 1}},
		[]migProfile{{"1g.18gb", 2}, {"2g.35gb", 1}, {"3g.71gb", 1}}},
	{"GB200", func(p string) bool { return has(p, "GB200") }, // lines 142, 360
		[]migProfile{{"1g.23gb", 7}, {"1g.47gb", 4}, {"2g.47gb", 3}, {"3g.93gb", 2}, {"4g.93gb", 1}, {"7g.186gb", 1}},
		[]migProfile{{"1g.23gb", 2}, {"2g.47gb", 1}, {"3g.93gb", 1}}},
	{"B200", func(p string) bool { return has(p, "B200") && !has(p, "GB200") }, // lines 142, 377
		[]migProfile{{"1g.23gb", 7}, {"1g.45gb", 4}, {"2g.45gb", 3}, {"3g.90gb", 2}, {"4g.90gb", 1}, {"7g.180gb", 1}},
		[]migProfile{{"1g.23gb", 2}, {"2g.45gb", 1}, {"3g.90gb", 1}}},
	{"A30", func(p string) bool { return has(p, "A30") }, // lines 186-210, 431
		[]migProfile{{"1g.6gb", 4}, {"2g.12gb", 2}, {"4g.24gb", 1}},
		[]migProfile{{"1g.6gb", 2}, {"2g.12gb", 1}}},
}

// migDeviceIDs are the PCI device IDs of each model, as the operator's
// default mig-parted config filters them (assets/state-mig-manager/
// 0400_configmap.yaml at v26.7.0, lines 114, 121, 360, 377, 386, 395-439), upper
// case without 0x: what a custom config's device-filter names.
var migDeviceIDs = map[string]string{
	"20B010DE": "A100/A800 40GB", "20B110DE": "A100/A800 40GB", "20F110DE": "A100/A800 40GB", "20F610DE": "A100/A800 40GB",
	"233010DE": "A100/A800/H100/H800 80GB", "233110DE": "A100/A800/H100/H800 80GB", "232210DE": "A100/A800/H100/H800 80GB",
	"20B210DE": "A100/A800/H100/H800 80GB", "20B510DE": "A100/A800/H100/H800 80GB", "20F310DE": "A100/A800/H100/H800 80GB",
	"20F510DE": "A100/A800/H100/H800 80GB", "232410DE": "A100/A800/H100/H800 80GB",
	"232110DE": "H100/H800 NVL", "233A10DE": "H100/H800 NVL",
	"234210DE": "GH200 96GB, H100 96GB, H20", "233D10DE": "GH200 96GB, H100 96GB, H20",
	"20B610DE": "GH200 96GB, H100 96GB, H20", "232910DE": "GH200 96GB, H100 96GB, H20",
	"234810DE": "GH200 144G",
	"233510DE": "H200", "233B10DE": "H200",
	"294110DE": "GB200",
	"290110DE": "B200",
	"20B710DE": "A30",
}

// fits says whether one GPU of the model can hold the devices: each plain
// profile one it offers, at most its most of it, and their compute slices
// (the <G>g of each) within the GPU's (its smallest profile's most: 7, or
// 4 on A30). Profiles with a compute-instance prefix or an attribute
// suffix are not judged; nor is a model drvcheck does not know.
func (m *migModel) fits(devices map[string]int64) bool {
	if m == nil {
		return true
	}
	var slices int64
	for profile, n := range devices {
		if n == 0 || strings.Count(profile, ".") != 1 { // a compute instance (1c.2g.20gb) or an attribute (1g.10gb.me)
			continue
		}
		i := slicesIndex(m.profiles, profile)
		if i < 0 || n > m.profiles[i].count {
			return false
		}
		compute, _, _ := strings.Cut(profile, "g")
		g, _ := strconv.ParseInt(compute, 10, 64)
		slices += g * n
	}
	return slices <= m.profiles[0].count
}

func slicesIndex(ps []migProfile, name string) int {
	for i, p := range ps {
		if p.name == name {
			return i
		}
	}
	return -1
}

// migModelOf is the MIG model of a GFD product label (its -MIG- and
// -SHARED suffixes off), or nil for a GPU without MIG drvcheck knows.
func migModelOf(product string) *migModel {
	if i := strings.Index(product, "-MIG-"); i >= 0 {
		product = product[:i]
	}
	for i := range migModels {
		if migModels[i].matches(product) {
			return &migModels[i]
		}
	}
	return nil
}

// MIGLayout is the MIG devices a config of the operator's gives one GPU
// of the product: all-<profile> its most of that profile, all-balanced
// the model's balance; nil when the config is not one of those or the
// model is not known.
func MIGLayout(product, config string) map[string]int64 {
	m := migModelOf(product)
	if m == nil {
		return nil
	}
	if config == "all-balanced" {
		return layout(m.balanced)
	}
	profile, ok := strings.CutPrefix(config, "all-")
	if !ok {
		return nil
	}
	for _, p := range m.profiles {
		if p.name == profile {
			return map[string]int64{p.name: p.count}
		}
	}
	return nil
}

func layout(ps []migProfile) map[string]int64 {
	out := map[string]int64{}
	for _, p := range ps {
		out[p.name] = p.count
	}
	return out
}

// MIGConfigFor is the config that gives the product's GPUs the profile
// (all-<profile>), how many each holds, and the model's name; "" when the
// model has no such profile or is not known. The model's profiles are the
// last result, for saying what it has instead.
func MIGConfigFor(product, profile string) (config string, perGPU int64, model string, profiles []string) {
	m := migModelOf(product)
	if m == nil {
		return "", 0, "", nil
	}
	for _, p := range m.profiles {
		profiles = append(profiles, p.name)
		if p.name == profile {
			config, perGPU = "all-"+p.name, p.count
		}
	}
	return config, perGPU, m.name, slices.Clip(profiles)
}

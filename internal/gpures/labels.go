package gpures

import (
	"maps"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// The labels of GPU Feature Discovery (NVIDIA/k8s-device-plugin v0.20.0,
// internal/lm) that say what the device plugin of the same node
// advertises. Each is written under a resource's name: nvidia.com/gpu.*
// for whole GPUs (and MIG devices under the single strategy),
// nvidia.com/mig-<profile>.* under the mixed one (resource.go:153-157).
const (
	gpuPrefix      = "nvidia.com/gpu"
	migPrefix      = "nvidia.com/mig-"
	countSuffix    = ".count"                      // devices of the resource (resource.go:168), never times replicas
	replicasSuffix = ".replicas"                   // replicas per device (resource.go:169, 208-215)
	sharingSuffix  = ".sharing-strategy"           // none, time-slicing or mps (resource.go:161-170)
	productSuffix  = ".product"                    // the model; -MIG-<profile>, -SHARED (resource.go:189-237)
	MIGStrategy    = "nvidia.com/mig.strategy"     // single or mixed; unset for none (strategy.go:20-27)
	MIGConfig      = "nvidia.com/mig.config"       // the mig-parted config the node should have (mig-parted main.go:49)
	MIGConfigState = "nvidia.com/mig.config.state" // pending, rebooting, success, failed (reconfigure.go:41)
	sharedProduct  = "-SHARED"
	invalidProduct = "-MIG-INVALID"
	sharedName     = ".shared" // renameByDefault's suffix (api/config/v1/replicas.go:204-208)
)

// fromLabels is what the device plugin advertises, as GPU Feature
// Discovery labels it:
//   - a resource's devices are its .count label, times its .replicas when
//     shared (the plugin makes replicas IDs per device, internal/rm/
//     device_map.go:286-347);
//   - a shared resource is renamed <name>.shared under renameByDefault,
//     and then its product label lacks the -SHARED suffix GFD gives a
//     shared resource that keeps its name (resource.go:202-204, 224-237);
//   - under the single MIG strategy nvidia.com/gpu counts the MIG devices
//     (mig-strategy.go:182-242), 0 when GFD calls the layout invalid
//     (-MIG-INVALID, mig-strategy.go:244-264);
//   - under the mixed one each profile is nvidia.com/mig-<profile>, and
//     MIG-enabled GPUs are not offered whole (internal/rm/device_map.go:
//     118-124): with a mig.config of MIG devices on every GPU (all-*, bar
//     all-disabled) none is.
//
// Without nvidia.com/gpu.count nothing is known, nor while mig-manager
// applies a config whose layout drvcheck does not know.
func fromLabels(labels map[string]string, mig *MIGConfigs) Offer {
	if _, ok := labels[gpuPrefix+countSuffix]; !ok {
		return Offer{}
	}
	o := Offer{Resources: map[corev1.ResourceName]int64{}, From: FromLabels}
	if labels[MIGStrategy] == "single" {
		if n, ok := singlePending(labels, mig); ok {
			o.Resources[corev1.ResourceName(gpuPrefix)] = n
			return o
		}
		if reconfiguring(labels) {
			return Offer{} // to a layout drvcheck does not know: the labels are the old one's
		}
	}
	if labels[MIGStrategy] == "mixed" {
		if desired, ok := pendingLayout(labels, mig); ok {
			// The node is to be repartitioned (or its labels were edited
			// to a new config): it will offer what the config makes.
			for profile, n := range desired.profiles {
				o.Resources[corev1.ResourceName(migPrefix+profile)] = n
			}
			o.Resources[corev1.ResourceName(gpuPrefix)] = desired.whole
			return o
		}
		if reconfiguring(labels) {
			return Offer{}
		}
		for _, profile := range labelledProfiles(labels) {
			o.add(labels, migPrefix+profile)
		}
		if len(o.Resources) > 0 && migOnEveryGPU(labels, mig) {
			o.Resources[corev1.ResourceName(gpuPrefix)] = 0
			return o
		}
	}
	o.add(labels, gpuPrefix)
	return o
}

// reconfiguring says whether mig-manager is applying the node's
// nvidia.com/mig.config (state pending or rebooting): its labels still
// count the old layout.
func reconfiguring(labels map[string]string) bool {
	state := labels[MIGConfigState]
	return labels[MIGConfig] != "" && (state == "pending" || state == "rebooting")
}

// labelledProfiles are the MIG profiles GFD counts on the node under the
// mixed strategy (nvidia.com/mig-<profile>.count).
func labelledProfiles(labels map[string]string) []string {
	var out []string
	for key := range labels {
		if rest, ok := strings.CutPrefix(key, migPrefix); ok {
			if profile, ok := strings.CutSuffix(rest, countSuffix); ok {
				out = append(out, profile)
			}
		}
	}
	return out
}

// add counts the resource whose labels start with base.
func (o Offer) add(labels map[string]string, base string) {
	devices := number(labels[base+countSuffix])
	if strings.HasSuffix(labels[base+productSuffix], invalidProduct) {
		devices = 0
	}
	name := base
	if replicas := number(labels[base+replicasSuffix]); replicas > 1 && shared(labels[base+sharingSuffix]) {
		devices *= replicas
		if !strings.HasSuffix(labels[base+productSuffix], sharedProduct) {
			name += sharedName
		}
	}
	o.Resources[corev1.ResourceName(name)] += devices
}

// pendingLayout is what the node's nvidia.com/mig.config makes of it
// when the node does not have it yet: mig-manager says pending or
// rebooting (mig-parted pkg/mig/reconfigure/reconfigure.go:158, 184-203),
// or the MIG profiles labelled are not the config's (a pull request that
// sets a new config on its nodes). False when the labels are the layout,
// mig-manager failed (the old layout stays), or the config or the model
// is not one drvcheck knows (desiredLayout).
func pendingLayout(labels map[string]string, mig *MIGConfigs) (nodeMIG, bool) {
	state := labels[MIGConfigState]
	if state == "failed" {
		return nodeMIG{}, false
	}
	desired, ok := desiredLayout(labels, mig)
	if !ok {
		return nodeMIG{}, false
	}
	if state == "pending" || state == "rebooting" {
		return desired, true
	}
	labelled := labelledProfiles(labels)
	if len(labelled) != len(desired.profiles) {
		return desired, true
	}
	for _, profile := range labelled {
		if _, ok := desired.profiles[profile]; !ok {
			return desired, true
		}
	}
	return nodeMIG{}, false
}

// desiredLayout is what the node's nvidia.com/mig.config makes of its
// GPUs: a config of the custom mig-parted ConfigMap when the inputs hold
// one (it replaces the operator's), else one of the operator's configs
// that partition every GPU alike (MIGLayout).
func desiredLayout(labels map[string]string, mig *MIGConfigs) (nodeMIG, bool) {
	config, product := labels[MIGConfig], labels[gpuPrefix+productSuffix]
	gpus := number(labels[gpuPrefix+countSuffix])
	if mig != nil {
		return mig.nodeLayout(config, product, gpus)
	}
	per := MIGLayout(product, config)
	if per == nil {
		return nodeMIG{}, false
	}
	out := nodeMIG{profiles: map[string]int64{}}
	for profile, n := range per {
		out.profiles[profile] = n * gpus
	}
	for range min(gpus, maxGPUs) {
		out.single = append(out.single, per)
	}
	return out, true
}

// singlePending is what nvidia.com/gpu will count under the single MIG
// strategy once mig-manager applies a nvidia.com/mig.config the node does
// not have yet (state pending or rebooting, or a product label whose MIG
// profile is not the config's): GFD counts the MIG devices when every GPU
// has devices of one profile, whole GPUs when none has MIG, and 0 (the
// product -MIG-INVALID) for more than one profile or MIG enabled with no
// device (k8s-device-plugin v0.20.0 internal/lm/mig-strategy.go:182-242).
// The node's GPUs are its count, or under MIG now its count over what
// the operator's all-<profile> config gives one GPU. False when the
// config, the model or the present layout is not one drvcheck knows.
func singlePending(labels map[string]string, mig *MIGConfigs) (int64, bool) {
	config, product := labels[MIGConfig], labels[gpuPrefix+productSuffix]
	if config == "" || labels[MIGConfigState] == "failed" {
		return 0, false
	}
	_, current, _ := strings.Cut(product, "-MIG-") // "" no MIG, a profile, or INVALID
	gpus, ok := physicalGPUs(labels, product, current)
	if !ok {
		return 0, false
	}
	want, ok := singleTarget(product, config, gpus, mig)
	if !ok {
		return 0, false
	}
	state := labels[MIGConfigState]
	if state != "pending" && state != "rebooting" && current == want.suffix {
		return 0, false
	}
	return gpus * want.perGPU, true
}

// physicalGPUs is the node's GPUs under the single strategy: its count,
// or under MIG of one profile its count over the devices the operator's
// all-<profile> gives one GPU; false under -MIG-INVALID, where how many
// GPUs is not labelled.
func physicalGPUs(labels map[string]string, product, current string) (int64, bool) {
	gpus := number(labels[gpuPrefix+countSuffix])
	switch current {
	case "":
		return gpus, true
	case "INVALID":
		return 0, false
	}
	per := MIGLayout(product, "all-"+current)[current]
	if per == 0 || gpus%per != 0 {
		return 0, false
	}
	return gpus / per, true
}

// singleTarget is what a config of the operator's makes GFD label under
// the single strategy: the product's suffix ("" whole GPUs, a profile,
// INVALID) and nvidia.com/gpu per GPU.
type singleLayout struct {
	suffix string
	perGPU int64
}

func singleTarget(product, config string, gpus int64, mig *MIGConfigs) (singleLayout, bool) {
	if mig != nil {
		layout, ok := mig.nodeLayout(config, product, gpus)
		if !ok {
			return singleLayout{}, false
		}
		return layout.singleTarget(gpus), true
	}
	switch config {
	case "all-disabled":
		return singleLayout{"", 1}, true
	case "all-enabled":
		return singleLayout{"INVALID", 0}, true
	}
	desired := MIGLayout(product, config)
	switch len(desired) {
	case 0:
		return singleLayout{}, false
	case 1:
		for profile, n := range desired {
			return singleLayout{profile, n}, true
		}
	}
	return singleLayout{"INVALID", 0}, true // all-balanced: more than one profile
}

// singleTarget is what GFD labels of a layout under the single strategy:
// whole GPUs when none has MIG, one profile's devices when every GPU has
// the same number of one profile, else INVALID (mig-strategy.go:182-242).
func (l nodeMIG) singleTarget(gpus int64) singleLayout {
	if l.whole == gpus {
		return singleLayout{"", 1}
	}
	if int64(len(l.single)) != gpus || len(l.single[0]) != 1 {
		return singleLayout{"INVALID", 0}
	}
	for _, per := range l.single {
		if !maps.Equal(per, l.single[0]) {
			return singleLayout{"INVALID", 0}
		}
	}
	for profile, n := range l.single[0] {
		if n > 0 {
			return singleLayout{profile, n}
		}
	}
	return singleLayout{"INVALID", 0}
}

func shared(strategy string) bool { return strategy == "time-slicing" || strategy == "mps" }

// migOnEveryGPU says whether the node's nvidia.com/mig.config puts MIG
// devices on every GPU: the operator's configs all-<profile> and
// all-balanced do (assets/state-mig-manager/0400_configmap.yaml), and
// all-disabled and all-enabled make none; a custom config's entries say
// (a name the custom ConfigMap lacks is read as the operator's would be).
func migOnEveryGPU(labels map[string]string, mig *MIGConfigs) bool {
	config := labels[MIGConfig]
	if mig.Has(config) {
		layout, ok := mig.nodeLayout(config, labels[gpuPrefix+productSuffix], number(labels[gpuPrefix+countSuffix]))
		return ok && layout.whole == 0 && len(layout.profiles) > 0
	}
	return strings.HasPrefix(config, "all-") && config != "all-disabled" && config != "all-enabled"
}

// number reads a count label, at most maxCount: a label a repository
// writes must not overflow a product of two.
func number(s string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return min(n, maxCount)
}

// maxCount is far above any node's devices or replicas (the device plugin
// allows 48 MPS clients a GPU; a node has at most a few dozen devices).
const maxCount = 1 << 20

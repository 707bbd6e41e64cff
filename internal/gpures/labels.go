package gpures

import (
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
// Without nvidia.com/gpu.count nothing is known.
func fromLabels(labels map[string]string) Offer {
	if _, ok := labels[gpuPrefix+countSuffix]; !ok {
		return Offer{}
	}
	o := Offer{Resources: map[corev1.ResourceName]int64{}, From: FromLabels}
	if labels[MIGStrategy] == "single" {
		if n, ok := singlePending(labels); ok {
			o.Resources[corev1.ResourceName(gpuPrefix)] = n
			return o
		}
	}
	if labels[MIGStrategy] == "mixed" {
		if desired := pendingLayout(labels); desired != nil {
			// The node is to be repartitioned (or its labels were edited
			// to a new config): it will offer what the config makes.
			gpus := number(labels[gpuPrefix+countSuffix])
			for profile, n := range desired {
				o.Resources[corev1.ResourceName(migPrefix+profile)] = n * gpus
			}
			o.Resources[corev1.ResourceName(gpuPrefix)] = 0
			return o
		}
		for _, profile := range labelledProfiles(labels) {
			o.add(labels, migPrefix+profile)
		}
		if len(o.Resources) > 0 && migOnEveryGPU(labels[MIGConfig]) {
			o.Resources[corev1.ResourceName(gpuPrefix)] = 0
			return o
		}
	}
	o.add(labels, gpuPrefix)
	return o
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

// pendingLayout is the layout per GPU of the node's nvidia.com/mig.config
// when the node does not have it yet: mig-manager says pending or
// rebooting (mig-parted pkg/mig/reconfigure/reconfigure.go:158, 184-203),
// or the MIG profiles labelled are not the config's (a pull request that
// sets a new config on its nodes). Nil when the labels are the layout,
// mig-manager failed (the old layout stays), or the config or the model
// is not one drvcheck knows (mig.go).
func pendingLayout(labels map[string]string) map[string]int64 {
	state := labels[MIGConfigState]
	if state == "failed" {
		return nil
	}
	desired := MIGLayout(labels[gpuPrefix+productSuffix], labels[MIGConfig])
	if desired == nil {
		return nil
	}
	if state == "pending" || state == "rebooting" {
		return desired
	}
	labelled := labelledProfiles(labels)
	if len(labelled) != len(desired) {
		return desired
	}
	for _, profile := range labelled {
		if _, ok := desired[profile]; !ok {
			return desired
		}
	}
	return nil
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
func singlePending(labels map[string]string) (int64, bool) {
	config, product := labels[MIGConfig], labels[gpuPrefix+productSuffix]
	if config == "" || labels[MIGConfigState] == "failed" {
		return 0, false
	}
	want, ok := singleTarget(product, config)
	if !ok {
		return 0, false
	}
	_, current, _ := strings.Cut(product, "-MIG-") // "" no MIG, a profile, or INVALID
	state := labels[MIGConfigState]
	if state != "pending" && state != "rebooting" && current == want.suffix {
		return 0, false
	}
	gpus := number(labels[gpuPrefix+countSuffix])
	switch current {
	case "":
	case "INVALID":
		return 0, false // how many GPUs is not labelled
	default:
		per := MIGLayout(product, "all-"+current)[current]
		if per == 0 || gpus%per != 0 {
			return 0, false
		}
		gpus /= per
	}
	return gpus * want.perGPU, true
}

// singleTarget is what a config of the operator's makes GFD label under
// the single strategy: the product's suffix ("" whole GPUs, a profile,
// INVALID) and nvidia.com/gpu per GPU.
type singleLayout struct {
	suffix string
	perGPU int64
}

func singleTarget(product, config string) (singleLayout, bool) {
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

func shared(strategy string) bool { return strategy == "time-slicing" || strategy == "mps" }

// migOnEveryGPU says whether a mig-parted config of that name puts MIG
// devices on every GPU: the operator's configs are all-<profile> and
// all-balanced (assets/state-mig-manager/0400_configmap.yaml), and
// all-disabled and all-enabled make none.
func migOnEveryGPU(config string) bool {
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

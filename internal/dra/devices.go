package dra

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	dracel "k8s.io/dynamic-resource-allocation/cel"
)

// Driver is NVIDIA's DRA driver for GPUs, and the domain of its attributes
// (kubernetes-sigs/dra-driver-nvidia-gpu cmd/gpu-kubelet-plugin/
// deviceinfo.go; site/content/docs/reference/resourceslice-attributes.md).
const Driver = "gpu.nvidia.com"

// Device is one device a node publishes, and, for one derived from labels,
// the spellings of its product name the label may stand for: GFD writes
// NVML's name with its spaces as dashes ("NVIDIA A100-SXM4-40GB" and
// "NVIDIA A100 SXM4 40GB" are both NVIDIA-A100-SXM4-40GB), the driver
// publishes NVML's name as it is. A selector is judged on each spelling.
type Device struct {
	dracel.Device
	Names []string // productName spellings, derived devices only
}

// Source says where a node's devices come from.
const (
	FromSlices = "resourceslices"
	FromLabels = "labels"
)

// FromResourceSlices are the devices each node's ResourceSlices publish.
func FromResourceSlices(slices []*resourcev1.ResourceSlice) map[string][]Device {
	out := map[string][]Device{}
	for _, s := range slices {
		node := ""
		if s.Spec.NodeName != nil {
			node = *s.Spec.NodeName
		}
		if node == "" {
			continue // network-attached devices: no node of their own
		}
		for _, d := range s.Spec.Devices {
			out[node] = append(out[node], Device{Device: dracel.Device{Driver: s.Spec.Driver, Attributes: d.Attributes, Capacity: d.Capacity}})
		}
	}
	return out
}

// FromNodeLabels are the devices NVIDIA's DRA driver would publish for n,
// from GFD's labels (k8s-device-plugin v0.20.0 internal/lm): one "gpu" per
// nvidia.com/gpu.count, or under the mixed MIG strategy one "mig" per
// nvidia.com/mig-<profile>.count, with the attributes the labels tell:
// productName, architecture (gpu.family), cudaComputeCapability
// (gpu.compute.major/minor), driverVersion (cuda.driver-version.*, as the
// driver writes it: semver, leading zeros dropped), brand, and memory
// (gpu.memory, MiB). Nil when GFD has not labelled n.
func FromNodeLabels(n *corev1.Node) []Device {
	l := n.Labels
	count, err := strconv.Atoi(l["nvidia.com/gpu.count"])
	if err != nil || count <= 0 {
		return nil
	}
	count = min(count, resourcev1.ResourceSliceMaxDevices) // a label of a billion GPUs is not a billion devices in memory
	product := l["nvidia.com/gpu.product"]
	base := strings.TrimSuffix(strings.TrimSuffix(product, "-SHARED"), "-MIG-INVALID")
	if i := strings.Index(base, "-MIG-"); i >= 0 {
		base = base[:i]
	}
	common := map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{"brand": str("Nvidia")}
	if f := architecture(l["nvidia.com/gpu.family"]); f != "" {
		common["architecture"] = str(f)
	}
	if cc := semver(l["nvidia.com/gpu.compute.major"], l["nvidia.com/gpu.compute.minor"], "0"); cc != "" {
		common["cudaComputeCapability"] = version(cc)
	}
	if dv := semver(l["nvidia.com/cuda.driver-version.major"], l["nvidia.com/cuda.driver-version.minor"], l["nvidia.com/cuda.driver-version.revision"]); dv != "" {
		common["driverVersion"] = version(dv)
	}
	names := spellings(base)
	var out []Device
	if l["nvidia.com/mig.strategy"] == "mixed" {
		for key, v := range l {
			profile, ok := strings.CutSuffix(strings.TrimPrefix(key, "nvidia.com/mig-"), ".count")
			if !ok || !strings.HasPrefix(key, "nvidia.com/mig-") {
				continue
			}
			n, _ := strconv.Atoi(v)
			for range min(n, resourcev1.ResourceSliceMaxDevices-len(out)) {
				attrs := with(common, "type", str("mig"), "profile", str(profile), "productName", str(names[0]))
				out = append(out, Device{Device: dracel.Device{Driver: Driver, Attributes: attrs, Capacity: memory(l["nvidia.com/mig-"+profile+".memory"])}, Names: names})
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	for range count {
		attrs := with(common, "type", str("gpu"), "productName", str(names[0]))
		out = append(out, Device{Device: dracel.Device{Driver: Driver, Attributes: attrs, Capacity: memory(l["nvidia.com/gpu.memory"])}, Names: names})
	}
	return out
}

// architecture is the driver's name of a GFD family (NVML's
// nvmlDeviceGetArchitecture, capitalised: deviceinfo.go).
func architecture(family string) string {
	switch family {
	case "", "undefined":
		return ""
	case "ada-lovelace":
		return "Ada Lovelace"
	}
	return strings.ToUpper(family[:1]) + family[1:]
}

// semver writes major.minor.patch, numbers without leading zeros (the
// driver normalises NVML's 580.95.05 to 580.95.5); "" when major is not a
// number.
func semver(major, minor, patch string) string {
	parts := []string{major, minor, patch}
	for i, p := range parts {
		if p == "" && i > 0 {
			p = "0"
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return ""
		}
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ".")
}

// spellings are the names a GFD product label may stand for, every dash
// either a dash or a space, the all-spaces one first (NVML's names are
// mostly words: "NVIDIA H100 80GB HBM3"). At most 64.
func spellings(label string) []string {
	parts := strings.Split(label, "-")
	if len(parts) > 7 {
		return []string{strings.Join(parts, " "), label}
	}
	var out []string
	for mask := 0; mask < 1<<(len(parts)-1); mask++ {
		var b strings.Builder
		b.WriteString(parts[0])
		for i, p := range parts[1:] {
			if mask&(1<<i) == 0 {
				b.WriteByte(' ')
			} else {
				b.WriteByte('-')
			}
			b.WriteString(p)
		}
		out = append(out, b.String())
	}
	return out
}

func memory(mib string) map[resourcev1.QualifiedName]resourcev1.DeviceCapacity {
	n, err := strconv.ParseInt(mib, 10, 64)
	if err != nil || n <= 0 {
		return nil
	}
	return map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{"memory": {Value: resource.MustParse(fmt.Sprintf("%dMi", n))}}
}

func str(s string) resourcev1.DeviceAttribute { return resourcev1.DeviceAttribute{StringValue: &s} }

func version(s string) resourcev1.DeviceAttribute {
	return resourcev1.DeviceAttribute{VersionValue: &s}
}

// with is common and the attributes kv names, a map of its own.
func with(common map[resourcev1.QualifiedName]resourcev1.DeviceAttribute, kv ...any) map[resourcev1.QualifiedName]resourcev1.DeviceAttribute {
	out := make(map[resourcev1.QualifiedName]resourcev1.DeviceAttribute, len(common)+len(kv)/2)
	for k, v := range common {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		out[resourcev1.QualifiedName(kv[i].(string))] = kv[i+1].(resourcev1.DeviceAttribute)
	}
	return out
}

// Describe names a device for messages: its product, and its profile for
// a MIG device.
func (d Device) Describe() string {
	name := ""
	if a, ok := d.Attributes["productName"]; ok && a.StringValue != nil {
		name = *a.StringValue
	}
	if a, ok := d.Attributes["profile"]; ok && a.StringValue != nil {
		name += " MIG " + *a.StringValue
	}
	if name == "" {
		name = d.Driver + " device"
	}
	return name
}

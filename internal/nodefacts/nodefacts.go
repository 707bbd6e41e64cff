// Package nodefacts reads what a GPU node is from its labels: whether it is
// a GPU node, its driver branch and version, kernel, OS tag, the precompiled
// driver image tag it needs, and the GPU Operator's upgrade state. It reads
// both the current gpu-feature-discovery keys and the older ones, and it never
// guesses: a label that is missing or empty is reported, and no tag is made.
package nodefacts

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Label keys, from gpu-feature-discovery, node-feature-discovery and the GPU
// Operator (see docs/input.md for sources).
const (
	GPUPresent   = "nvidia.com/gpu.present"
	Kernel       = "feature.node.kubernetes.io/kernel-version.full"
	OSID         = "feature.node.kubernetes.io/system-os_release.ID"
	OSVersionID  = "feature.node.kubernetes.io/system-os_release.VERSION_ID"
	UpgradeState = "nvidia.com/gpu-driver-upgrade-state"
)

// driverKeys are the driver version label keys, current first.
var driverKeys = []struct{ major, minor, rev string }{
	{"nvidia.com/cuda.driver-version.major", "nvidia.com/cuda.driver-version.minor", "nvidia.com/cuda.driver-version.revision"},
	{"nvidia.com/cuda.driver.major", "nvidia.com/cuda.driver.minor", "nvidia.com/cuda.driver.rev"},
}

// Problem is a label the tag needs that is missing or empty.
type Problem struct {
	Label  string `json:"label"`
	Reason string `json:"reason"` // "missing" or "empty"
}

// Facts are what drvcheck knows about one node.
type Facts struct {
	Name          string
	GPU           bool
	Branch        string // driver branch, e.g. "550"
	DriverVersion string // e.g. "550.90.07"; empty when unknown
	Kernel        string
	OSID          string
	OSVersion     string
	OSTag         string // e.g. "ubuntu22.04"
	Tag           string // empty unless every fact is present
	Problems      []Problem
	UpgradeState  string
	Unschedulable bool
}

// Of reads the facts of node.
func Of(node *corev1.Node) Facts {
	l := node.Labels
	f := Facts{
		Name:          node.Name,
		GPU:           l[GPUPresent] == "true",
		UpgradeState:  l[UpgradeState],
		Unschedulable: node.Spec.Unschedulable,
	}
	f.Branch = f.require(l, driverLabel(l), driverKeys[1].major)
	f.DriverVersion = driverVersion(l)
	f.Kernel = f.require(l, Kernel, "")
	f.OSID = f.require(l, OSID, "")
	f.OSVersion = f.require(l, OSVersionID, "")
	if f.OSID != "" && f.OSVersion != "" {
		f.OSTag = f.OSID + f.OSVersion
	}
	if len(f.Problems) == 0 {
		f.Tag = TagFor(f.Branch, f.Kernel, f.OSTag)
	}
	return f
}

// TagFor builds a precompiled driver image tag,
// <driver branch>-<kernel version>-<os tag>.
func TagFor(branch, kernel, osTag string) string {
	return branch + "-" + kernel + "-" + osTag
}

// Branch returns the branch of a full driver version ("550.90.07" -> "550").
func Branch(version string) string {
	b, _, _ := strings.Cut(version, ".")
	return b
}

// driverLabel picks the current key when the node carries it, else the
// older one; a node with neither is reported under the current key.
func driverLabel(l map[string]string) string {
	for _, k := range driverKeys {
		if _, ok := l[k.major]; ok {
			return k.major
		}
	}
	return driverKeys[0].major
}

// require returns l[key], recording a Problem when it is missing or empty.
// alt names the older key to mention when neither is present.
func (f *Facts) require(l map[string]string, key, alt string) string {
	v, ok := l[key]
	switch {
	case !ok:
		name := key
		if alt != "" && alt != key {
			name = key + " (or " + alt + ")"
		}
		f.Problems = append(f.Problems, Problem{Label: name, Reason: "missing"})
	case strings.TrimSpace(v) == "":
		f.Problems = append(f.Problems, Problem{Label: key, Reason: "empty"})
	}
	return v
}

func driverVersion(l map[string]string) string {
	for _, k := range driverKeys {
		major, minor := l[k.major], l[k.minor]
		if major == "" || minor == "" {
			continue
		}
		if rev := l[k.rev]; rev != "" {
			return major + "." + minor + "." + rev
		}
		return major + "." + minor
	}
	return ""
}

// Package nodefacts reads what a GPU node is from its labels: whether it is
// a GPU node, its driver branch and version, kernel, OS tag, the precompiled
// driver image tag it needs, and the GPU Operator's upgrade state. It reads
// both the current gpu-feature-discovery keys and the older ones, and it never
// guesses: a label that is missing or empty is reported, and no tag is made.
// It owns how driver versions are written (ParseBranch, CheckVersion), so
// that no other package spells them; the tag's format is imageref's, and
// which image a node gets is an Imager's (the lab's Labels, or the
// operator's profile).
package nodefacts

import (
	"fmt"
	"strconv"
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
	// UpgradeSkip=true keeps a node in upgrade-required: the upgrade
	// library never starts it.
	UpgradeSkip = "nvidia.com/gpu-driver-upgrade.skip"
	// UpgradeRequested (an annotation) asks the upgrade library to
	// upgrade a node whose driver is already in sync.
	UpgradeRequested = "nvidia.com/gpu-driver-upgrade-requested"
	// InitialUnschedulable (an annotation) records that the node was
	// cordoned before the upgrade began, so the library leaves it so.
	InitialUnschedulable = "nvidia.com/gpu-driver-upgrade.node-initial-state.unschedulable"
)

// driverKeys are the driver version label keys, current first.
var driverKeys = []struct{ major, minor, rev string }{
	{"nvidia.com/cuda.driver-version.major", "nvidia.com/cuda.driver-version.minor", "nvidia.com/cuda.driver-version.revision"},
	{"nvidia.com/cuda.driver.major", "nvidia.com/cuda.driver.minor", "nvidia.com/cuda.driver.rev"},
}

// Problem is a label the tag needs that is missing or empty.
type Problem struct {
	Label  string `json:"label"`
	Reason string `json:"reason"` // "missing", "empty" or "invalid (…)"
	// Key is the label key to point at: Label without the "(or …)" of a
	// missing driver key.
	Key string `json:"-"`
}

// Facts are what drvcheck knows about one node.
type Facts struct {
	Name string
	GPU  bool
	// GPUBy is the label that makes the node a GPU node (GPUBy).
	GPUBy         string
	Branch        string // driver branch, e.g. "550"
	BranchNumber  int    // Branch as a number; 0 when unknown or malformed
	DriverVersion string // e.g. "550.90.07"; empty when unknown
	Kernel        string
	OSID          string
	OSVersion     string
	OSTag         string // e.g. "ubuntu22.04"
	Arch          string // kubernetes.io/arch, e.g. "arm64"; empty without the label
	Tag           string // empty unless every fact is present
	Problems      []Problem
	UpgradeState  string
	Unschedulable bool
	Ready         bool // the Ready condition (Ready)
	// BranchKey is the label the branch is read from (the current
	// gpu-feature-discovery key unless the node carries only the older one).
	BranchKey string
	// Image is the driver image the node needs: the GPU Operator's, when
	// the run has an operator profile (internal/operator), else the
	// precompiled tag made from the node's labels, as in the lab.
	Image Image
}

// Image is the driver image a node needs, and whether the GPU Operator
// deploys one on it at all.
type Image struct {
	Ref         string // repository/image:tag, or @digest; empty without a profile
	Repository  string // where the tag is looked for; empty without a profile
	Version     string // the driver version the tag is made from
	Precompiled bool
	Digest      bool   // Ref names a digest: there is no tag to look for
	OSTag       string // the OS tag in the tag, as the operator writes it
	Managed     bool   // the operator deploys a driver here
	Reason      string // why it does not, when not Managed
	Owner       string // ClusterPolicy/NAME or NVIDIADriver/NAME; empty without a profile
	// OwnerError says why no single NVIDIADriver owns the node.
	OwnerError string
	// Unresolved says why the image cannot be known from the inputs (the
	// operator's environment gives it).
	Unresolved string
	// Platforms are the architectures the registry's index of Ref holds,
	// read for nodes of another architecture than amd64; nil when not read.
	Platforms []string
	// Candidates are the tags the node may get besides its own: under one
	// ClusterPolicy the operator uses the OS tag of one arbitrary GPU node
	// for all, so with several OSes each node may get any of them.
	Candidates []string
	// Aux are the driver pod's other images on this node: the driver
	// manager, and GDS and GDRCopy when enabled.
	Aux []AuxImage
}

// AuxImage is one of the driver pod's images besides the driver.
type AuxImage struct {
	Name  string // driver-manager, gds, gdrcopy
	Title string // for messages: "GDS image"
	Field string // where the profile sets it, e.g. spec.gds
	// Ref is the whole reference; empty when the inputs leave it to the
	// operator's environment (Unresolved says so).
	Ref, Repository, Tag string
	Digest               bool
	Unresolved           string
	// Refused: the operator refuses the spec (a partial image, a
	// reference that does not parse), not merely leaves it to its
	// environment.
	Refused bool
}

// Ready is the node's Ready condition; a node without one (a manifest)
// is taken as Ready.
func Ready(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return true
}

// Of reads the facts of node.
func Of(node *corev1.Node) Facts {
	l := node.Labels
	f := Facts{
		Name:          node.Name,
		GPUBy:         GPUBy(l),
		UpgradeState:  l[UpgradeState],
		Unschedulable: node.Spec.Unschedulable,
		Ready:         Ready(node),
		BranchKey:     driverLabel(l),
		Arch:          l[corev1.LabelArchStable],
	}
	f.Branch = f.require(l, f.BranchKey, driverKeys[1].major)
	f.BranchNumber, _ = ParseBranch(f.Branch)
	f.DriverVersion = driverVersion(l)
	f.Kernel = f.require(l, Kernel, "")
	f.OSID = f.require(l, OSID, "")
	f.OSVersion = f.require(l, OSVersionID, "")
	if f.OSID != "" && f.OSVersion != "" {
		f.OSTag = f.OSID + f.OSVersion
	}
	f.GPU = f.GPUBy != ""
	f.Image = Image{Version: f.Branch, Precompiled: true, OSTag: f.OSTag, Managed: true}
	if why := Unmanaged(l); why != "" {
		f.Image.Managed, f.Image.Reason = false, why
	}
	return f
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
		f.Problems = append(f.Problems, Problem{Label: name, Reason: "missing", Key: key})
	case strings.TrimSpace(v) == "":
		f.Problems = append(f.Problems, Problem{Label: key, Reason: "empty", Key: key})
	case !tagPart.MatchString(v):
		f.Problems = append(f.Problems, Problem{Label: key, Key: key,
			Reason: fmt.Sprintf("invalid (%q cannot be part of an image tag)", v)})
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

// ParseBranch reads a driver branch as users and labels write it: "580",
// or a driver version "580.65.06" whose branch is taken.
func ParseBranch(s string) (int, error) {
	major, _, _ := strings.Cut(strings.TrimSpace(s), ".")
	b, err := strconv.Atoi(major)
	if err != nil || b <= 0 {
		return 0, &BranchError{Value: s}
	}
	return b, nil
}

// BranchError is a value that is not a driver branch or version.
type BranchError struct{ Value string }

func (e *BranchError) Error() string {
	return strconv.Quote(e.Value) + " is not a driver branch (want e.g. 580 or 580.65.06)"
}

package operator

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/drvcheck/drvcheck/internal/imageref"
	"github.com/drvcheck/drvcheck/internal/object"
)

// Driver is one driver configuration: the ClusterPolicy's (or the flags'
// or the values file's, which stand for one), or one NVIDIADriver's.
type Driver struct {
	// Object is where it was read: ClusterPolicy/NAME, NVIDIADriver/NAME,
	// the object a values file makes (values.go), the GitOps object that
	// installs the chart, or the flags' stand-in (Flags/drvcheck).
	Object      object.Ref
	Enabled     bool
	Precompiled bool
	Repository  string
	Image       string
	Version     string
	// NodeSelector and Default scope an NVIDIADriver.
	NodeSelector map[string]string
	Default      bool
	// Upgrade is how the operator rolls a new driver over the driver's
	// nodes: one scope per NVIDIADriver (v26.7+), else one for all.
	Upgrade Policy
	// Unresolved says why the image cannot be known from the inputs (the
	// operator's environment gives it); no node of the driver has a tag.
	Unresolved string
	// Aux are the driver pod's other images (aux.go).
	Aux []Aux
	// KernelModuleType is spec.driver.kernelModuleType (auto, open,
	// proprietary; "" when unset, which the CRD defaults to auto).
	KernelModuleType string
	// UseOpenKernelModules is the field kernelModuleType replaced in v25.3.
	UseOpenKernelModules bool
	// RDMA: GPUDirect RDMA is enabled (the nvidia-peermem container).
	RDMA bool
	// Spec is the object's whole spec as read (the values, for the
	// chart's), which a change is judged on field by field
	// (internal/operator/change).
	Spec map[string]any
	// Rendered, for a driver the chart's values make, is the values over
	// the chart's defaults of the operator's release: what the chart
	// renders (rendered.go). Nil when the release is not known.
	Rendered map[string]any
	// Chart marks a driver the chart's values make: a version they leave
	// out is the chart's default of its release, and Spec's paths carry
	// no spec. prefix.
	Chart bool
}

// Owner names the driver as the operator's owner label does, e.g.
// NVIDIADriver/gpu-a100.
func (d Driver) Owner() string { return d.Object.Kind + "/" + d.Object.Name }

var (
	branchRe  = regexp.MustCompile(`^\d+$`)
	fullRe    = regexp.MustCompile(`^\d+\.\d+(\.\d+)?$`)
	digestRe  = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	kernelArg = "KERNEL" // stands for the kernel when a driver is checked alone
)

// Ref is the image reference a driver gives a node with kernel and osTag,
// composed as imagePath and resolveDriverTag (ClusterPolicy) or
// GetImagePath and GetPrecompiledImagePath (NVIDIADriver) do: repository,
// image and version together, or image alone taken verbatim; a digest
// version taken as is; else the tag version-osTag, or
// version-kernel-osTag when precompiled.
func (d Driver) Ref(kernel, osTag string) (imageref.Ref, error) {
	if d.Unresolved != "" {
		return imageref.Ref{}, errors.New(d.Unresolved)
	}
	if !d.Precompiled {
		kernel = ""
	}
	switch {
	case d.Repository == "" && d.Version == "" && d.Image != "":
		return d.imageAlone(kernel, osTag)
	case d.Repository == "" || d.Image == "" || d.Version == "":
		return imageref.Ref{}, fmt.Errorf("%s: set repository, image and version together (or image alone); the operator refuses %s", d.Owner(), d.given())
	case strings.HasPrefix(d.Version, "sha256:"):
		if !digestRe.MatchString(d.Version) {
			return imageref.Ref{}, fmt.Errorf("%s: version %q is not a sha256 digest", d.Owner(), d.Version)
		}
		return imageref.WithDigest(d.Repository+"/"+d.Image, d.Version), d.noDigestWhenPrecompiled()
	case !branchRe.MatchString(d.Version) && !fullRe.MatchString(d.Version):
		return imageref.Ref{}, fmt.Errorf("%s: version %q is neither a driver branch (550), a driver version (550.90.07) nor a digest (sha256:…)", d.Owner(), d.Version)
	}
	return imageref.WithTag(d.Repository+"/"+d.Image, imageref.DriverTag(d.Version, kernel, osTag)), nil
}

// imageAlone is the reference of a driver that sets image alone: the
// operator takes it verbatim, appending the tag's suffix to the whole
// string unless it names a digest (resolveDriverTag,
// object_controls.go:3395-3400).
func (d Driver) imageAlone(kernel, osTag string) (imageref.Ref, error) {
	whole := d.Image
	if !strings.Contains(whole, "sha256:") {
		whole = imageref.DriverTag(whole, kernel, osTag)
	}
	ref, err := imageref.Parse(whole)
	if err != nil {
		return imageref.Ref{}, fmt.Errorf("%s: image %q makes no image reference; its pods would fail with InvalidImageName", d.Owner(), d.Image)
	}
	if ref.Digest != "" {
		return ref, d.noDigestWhenPrecompiled()
	}
	return ref, nil
}

func (d Driver) noDigestWhenPrecompiled() error {
	if d.Precompiled {
		return fmt.Errorf("%s: a precompiled driver has no digest form (its tag names the kernel); give a branch as version", d.Owner())
	}
	return nil
}

// given lists the image fields set, for the message.
func (d Driver) given() string {
	var set []string
	for _, f := range []struct{ name, v string }{{"repository", d.Repository}, {"image", d.Image}, {"version", d.Version}} {
		if f.v != "" {
			set = append(set, f.name)
		}
	}
	if len(set) == 0 {
		return "none of them"
	}
	return "only " + strings.Join(set, " and ")
}

// check refuses a driver no node could get an image from.
func (d Driver) check() error {
	if d.Unresolved != "" || d.Refusal() != "" {
		return nil // not an error of the inputs: Unresolved says what to give, DRV009 what the operator does
	}
	_, err := d.Ref(kernelArg, "os")
	return err
}

// Refusal says what the operator does with a precompiled driver whose
// version is a digest, a configuration its inputs may hold (DRV009): an
// NVIDIADriver is refused ("specifying image digest is not supported when
// precompiled is enabled", nvidiadriver_types.go:682-685 at v26.7.0), and
// a ClusterPolicy writes <repository>/<image>:<digest>-<kernel>, which is
// no image reference (object_controls.go:3383-3394, 3423-3427). "" for any
// other driver.
func (d Driver) Refusal() string {
	if !d.Precompiled || !digestRe.MatchString(d.Version) {
		return ""
	}
	if d.Object.Kind == "NVIDIADriver" {
		return "the operator refuses it (\"specifying image digest is not supported when precompiled is enabled\"): its nodes get no driver"
	}
	return "the operator writes " + d.Repository + "/" + d.Image + ":" + d.Version + "-<kernel>, which is no image reference: its driver pods fail with InvalidImageName"
}

// VersionNotBranch says whether a precompiled driver names a full
// version: its tags never exist (gpu-operator#933).
func (d Driver) VersionNotBranch() bool {
	return d.Precompiled && fullRe.MatchString(d.Version)
}

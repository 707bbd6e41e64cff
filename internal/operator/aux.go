package operator

import (
	"fmt"
	"strings"
)

// The driver pod's images besides the driver, by the name findings give
// them. The nvidia-peermem container (GPUDirect RDMA) runs the driver
// image itself (object_controls.go:2977-3022, resolveDriverTag), so it
// adds no image to look for.
const (
	AuxManager = "driver-manager" // k8s-driver-manager, the init container; always there
	AuxGDS     = "gds"            // nvidia-fs, when spec.gds.enabled
	AuxGDRCopy = "gdrcopy"        // gdrdrv, when spec.gdrcopy.enabled
)

// Aux is one image of the driver pod besides the driver, as its spec
// gives it.
type Aux struct {
	Name  string // AuxManager, AuxGDS or AuxGDRCopy
	Field string // where it is set, e.g. spec.gds
	AuxSpec
	// OSTag: the operator appends -<os tag> to the tag, as to the
	// driver's (GDS and GDRCopy: resolveDriverTag, object_controls.go:
	// 3423-3427; the driver manager's tag is taken as written, 2944-2948).
	OSTag bool
}

// auxOf is the driver pod's other images of a spec: the driver manager
// always, GDS and GDRCopy when enabled. field is the spec's path, e.g.
// "spec" or "driver" for values.
func auxOf(prefix string, manager AuxSpec, gds, gdrcopy *AuxSpec) []Aux {
	out := []Aux{{Name: AuxManager, Field: prefix + "driver.manager", AuxSpec: manager}}
	if gds != nil && isTrue(gds.Enabled) {
		out = append(out, Aux{Name: AuxGDS, Field: prefix + "gds", AuxSpec: *gds, OSTag: true})
	}
	if gdrcopy != nil && isTrue(gdrcopy.Enabled) {
		out = append(out, Aux{Name: AuxGDRCopy, Field: prefix + "gdrcopy", AuxSpec: *gdrcopy, OSTag: true})
	}
	return out
}

// Ref is the image a node of OS tag osTag pulls, composed as imagePath
// does (clusterpolicy_types.go:2054-2086): the image alone when neither
// repository nor version is set, a digest version as @digest, else
// repository/image:version, with -osTag appended unless it names a
// digest. ok is false when the spec leaves the image to the operator's
// environment (DRIVER_MANAGER_IMAGE, GDS_IMAGE, GDRCOPY_IMAGE), which the
// inputs do not hold, or gives it only in part.
func (a Aux) Ref(osTag string) (ref string, ok bool) {
	switch {
	case a.Repository == "" && a.Version == "" && a.Image != "":
		ref = a.Image
	case a.Repository == "" || a.Image == "" || a.Version == "":
		return "", false
	case strings.HasPrefix(a.Version, "sha256:"):
		ref = a.Repository + "/" + a.Image + "@" + a.Version
	default:
		ref = a.Repository + "/" + a.Image + ":" + a.Version
	}
	if a.OSTag && !strings.Contains(ref, "sha256:") {
		ref += "-" + osTag
	}
	return ref, true
}

// Title names the image in messages, e.g. "GDS image (nvidia-fs)".
func (a Aux) Title() string {
	return fmt.Sprintf("%s image", map[string]string{AuxManager: "driver-manager", AuxGDS: "GDS", AuxGDRCopy: "GDRCopy"}[a.Name])
}

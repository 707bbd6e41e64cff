package operator

import (
	"fmt"
	"strings"

	"github.com/drvcheck/drvcheck/internal/imageref"
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
// digest. Without a reference, why says so: a spec that sets none of the
// three leaves the image to the operator's environment
// (DRIVER_MANAGER_IMAGE, GDS_IMAGE, GDRCOPY_IMAGE), which the inputs do
// not hold; one that sets only some is refused by the operator, as is a
// reference that does not parse.
func (a Aux) Ref(osTag string) (ref imageref.Ref, why string) {
	switch {
	case a.Repository == "" && a.Version == "" && a.Image != "":
		return a.imageAlone(osTag)
	case a.Repository == "" && a.Image == "" && a.Version == "":
		return ref, "sets none of repository, image and version: the operator takes it from its own environment"
	case a.Repository == "" || a.Image == "" || a.Version == "":
		return ref, "sets only some of repository, image and version: the operator refuses it (imagePath, clusterpolicy_types.go:2063-2065) and renders no driver DaemonSet"
	case strings.HasPrefix(a.Version, "sha256:"):
		ref = imageref.WithDigest(a.Repository+"/"+a.Image, a.Version)
	case a.OSTag:
		ref = imageref.WithTag(a.Repository+"/"+a.Image, imageref.DriverTag(a.Version, "", osTag))
	default:
		ref = imageref.WithTag(a.Repository+"/"+a.Image, a.Version)
	}
	return checked(ref.String())
}

// imageAlone is the reference of a spec that sets image alone: taken
// verbatim, with -osTag appended to the whole string unless it names a
// digest.
func (a Aux) imageAlone(osTag string) (imageref.Ref, string) {
	whole := a.Image
	if a.OSTag && !strings.Contains(whole, "sha256:") {
		whole = imageref.DriverTag(whole, "", osTag)
	}
	return checked(whole)
}

// checked reads the reference the operator would write into the pod,
// which the kubelet refuses when it does not parse.
func checked(whole string) (imageref.Ref, string) {
	ref, err := imageref.Parse(whole)
	if err != nil {
		return ref, fmt.Sprintf("makes %q, which is no image reference: its pods fail with InvalidImageName", whole)
	}
	return ref, ""
}

// chartAux are the chart's defaults of the images' repository and name
// (values.yaml:200-201, 445-447, 455-457 at v26.7.0), the same at every
// release; their versions change with each.
var chartAux = map[string][2]string{
	AuxManager: {"nvcr.io/nvidia/cloud-native", "k8s-driver-manager"},
	AuxGDS:     {"nvcr.io/nvidia/cloud-native", "nvidia-fs"},
	AuxGDRCopy: {"nvcr.io/nvidia/cloud-native", "gdrdrv"},
}

// withChartDefaults fills what the chart's values leave out of each
// image with the chart's own values; the version stays the values' own.
func withChartDefaults(aux []Aux) []Aux {
	for i := range aux {
		d := chartAux[aux[i].Name]
		if aux[i].Repository == "" && aux[i].Image == "" && aux[i].Version != "" {
			aux[i].Repository, aux[i].Image = d[0], d[1]
		}
	}
	return aux
}

// Title names the image in messages, e.g. "GDS image".
func (a Aux) Title() string { return auxTitles[a.Name] }

var auxTitles = map[string]string{AuxManager: "driver-manager image", AuxGDS: "GDS image", AuxGDRCopy: "GDRCopy image"}

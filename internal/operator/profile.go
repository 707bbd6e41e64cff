package operator

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/drvcheck/drvcheck/internal/imageref"
	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/internal/repofs"
)

// Modes: which of the operator's code paths gives the nodes their driver.
const (
	ModeClusterPolicy = "clusterpolicy" // one driver for every node
	ModeNVIDIADriver  = "nvidiadriver"  // one driver per node pool
)

// Profile is how the GPU Operator deploys drivers in one run.
type Profile struct {
	Mode    string
	Drivers []Driver // one under ModeClusterPolicy
	// Version is the operator's release; VersionFrom says where it was
	// read, or that it was assumed (the newest drvcheck knows).
	Version     Version
	VersionFrom string
	// From says where the image's values were read, by field.
	From map[string]string

	valuesVersion string // operator.version of a values file
	chartVersion  string // the chart version a GitOps object pins
	// Notes are what the run should say about the profile's sources.
	Notes []string
	// ClusterPolicy is the ClusterPolicy the profile is read from, nil
	// when only flags or NVIDIADrivers give it; GPUClusters are the
	// GPUClusters the inputs declare, which may not exist beside it
	// (stacks.go).
	ClusterPolicy *Declared
	GPUClusters   []Declared
	// clusterUpgrade: before v26.7 the ClusterPolicy's upgradePolicy rolls
	// the NVIDIADriver nodes too, as one scope; its hostPaths.rootFS is
	// their host root (HostRoot).
	clusterUpgrade []*ClusterPolicy
}

// Flags are the driver flags: each wins over every object and file.
type Flags struct {
	DriverVersion    string // --driver-version
	Precompiled      bool   // --precompiled
	DriverRepository string // --driver-repository, repository/image
	DriverImage      string // --driver-image, a whole reference
	OperatorVersion  string // --operator-version
	Values           string // --operator-values FILE
	// FS reads Values (internal/repofs); nil reads it as named.
	FS *repofs.FS
}

// DefaultRepository is --driver-repository's default, the chart's.
const DefaultRepository = "nvcr.io/nvidia/driver"

// Objects are what the operator's configuration is read from besides the
// flags: its objects among the inputs, and the images of the Deployments
// (the operator's own gives its version).
type Objects struct {
	ClusterPolicies []*ClusterPolicy
	NVIDIADrivers   []*NVIDIADriver
	Images          []string
	// DriverImages are the DRIVER_IMAGE environment values of the
	// Deployments (the operator's, as OLM installs it).
	DriverImages []EnvImage
	// Installs are the GitOps objects that install the gpu-operator
	// chart from a chart repository, in read order.
	Installs []Install
	// GPUClusters are the GPUCluster objects among the inputs.
	GPUClusters []Declared
}

// Install is the gpu-operator chart as a GitOps object installs it: its
// inline values and the chart version it pins.
type Install struct {
	From    object.Ref
	Version string
	Values  map[string]any
}

// EnvImage is a DRIVER_IMAGE value and the object that sets it.
type EnvImage struct{ Value, From string }

// DriverImageEnv is the operator Deployment's environment variable that
// gives the driver image when the ClusterPolicy sets none of repository,
// image and version (api/nvidia/v1/clusterpolicy_types.go, ImagePath:
// imagePath(repository, image, version, "DRIVER_IMAGE")): how the
// OperatorHub bundle installs it.
const DriverImageEnv = "DRIVER_IMAGE"

// Build makes the run's profile, or nil when nothing configures one (the
// lab's model then holds). First wins: flags, then the objects, then the
// values file.
func Build(f Flags, objs Objects) (*Profile, error) {
	p, err := fromObjects(objs)
	if err == nil && p == nil && f.Values != "" {
		p, err = fromValues(f.FS, f.Values)
	}
	if err == nil && p == nil && len(objs.Installs) > 0 {
		p, err = fromInstalls(objs.Installs)
	}
	if err == nil && p == nil && (f.DriverVersion != "" || f.Precompiled || f.DriverRepository != "" || f.DriverImage != "") {
		p = fromFlags()
	}
	if err != nil || p == nil {
		return nil, err
	}
	if err := p.applyFlags(f); err != nil {
		return nil, err
	}
	if err := p.setVersion(f, objs); err != nil {
		return nil, err
	}
	p.GPUClusters = append(p.GPUClusters, objs.GPUClusters...)
	p.fromChartDefaults()
	p.renderCharts()
	p.fromEnvironment(objs.DriverImages)
	p.scopeUpgrades()
	return p, p.check()
}

func fromFlags() *Profile {
	repo, image := splitRepository(DefaultRepository)
	d := Driver{Object: object.Ref{Kind: "Flags", Name: "drvcheck"}, Enabled: true, Repository: repo, Image: image,
		Upgrade: ChartPolicy(nil, "the chart's default driver.upgradePolicy (no operator object read)")}
	return &Profile{Mode: ModeClusterPolicy, Drivers: []Driver{d},
		From: map[string]string{"repository": "default", "image": "default"}}
}

func fromObjects(objs Objects) (*Profile, error) {
	switch cps := objs.ClusterPolicies; {
	case len(cps) > 1:
		return nil, fmt.Errorf("ClusterPolicy/%s and ClusterPolicy/%s: the operator reconciles one ClusterPolicy; remove the other", cps[0].Name, cps[1].Name)
	case len(cps) == 1 && !isTrue(cps[0].Spec.Driver.UseNvidiaDriverCRD):
		return clusterPolicyProfile(cps[0]), nil
	case len(cps) == 1 || len(objs.NVIDIADrivers) > 0:
		return nvidiaDriverProfile(objs.NVIDIADrivers, cps)
	}
	return nil, nil
}

func clusterPolicyProfile(cp *ClusterPolicy) *Profile {
	s := cp.Spec.Driver
	d := Driver{Object: object.Ref{Kind: "ClusterPolicy", Name: cp.Name}, Enabled: s.Enabled == nil || *s.Enabled,
		Precompiled: isTrue(s.UsePrecompiled), Repository: s.Repository, Image: s.Image, Version: s.Version,
		Upgrade:          PolicyOf(s.UpgradePolicy, "ClusterPolicy/"+cp.Name+" spec.driver.upgradePolicy", false),
		Aux:              auxOf("spec.", s.Manager, cp.Spec.GDS, cp.Spec.GDRCopy),
		KernelModuleType: s.KernelModuleType, UseOpenKernelModules: isTrue(s.UseOpenKernelModules), RDMA: s.RDMA != nil && isTrue(s.RDMA.Enabled), Spec: cp.Raw}
	declared := ItSelf(d.Object)
	return &Profile{Mode: ModeClusterPolicy, Drivers: []Driver{d}, From: fromAll(d.Owner()), ClusterPolicy: &declared}
}

func nvidiaDriverProfile(crs []*NVIDIADriver, cps []*ClusterPolicy) (*Profile, error) {
	if len(crs) == 0 {
		return nil, errors.New("the ClusterPolicy sets useNvidiaDriverCRD but no NVIDIADriver is among the inputs: give the NVIDIADriver objects")
	}
	p := &Profile{Mode: ModeNVIDIADriver, From: fromAll("NVIDIADriver")}
	for _, cr := range crs {
		s := cr.Spec
		if s.DriverType != "" && s.DriverType != "gpu" {
			continue // vGPU drivers are not NVIDIA's public images
		}
		image := s.Image
		if image == "" {
			image = DefaultRepository // the CRD's default
		}
		p.Drivers = append(p.Drivers, Driver{Object: object.Ref{Kind: "NVIDIADriver", Name: cr.Name}, Enabled: true,
			Precompiled: isTrue(s.UsePrecompiled), Repository: s.Repository, Image: image, Version: s.Version,
			NodeSelector: s.NodeSelector, Default: s.Default,
			Upgrade:          PolicyOf(s.UpgradePolicy, "NVIDIADriver/"+cr.Name+" spec.upgradePolicy", true),
			Aux:              nvidiaDriverAux(s.Manager, s.GDS, s.GDRCopy),
			KernelModuleType: s.KernelModuleType, UseOpenKernelModules: isTrue(s.UseOpenKernelModules), RDMA: s.RDMA != nil && isTrue(s.RDMA.Enabled), Spec: cr.Raw})
	}
	p.clusterUpgrade = cps
	if len(cps) > 0 {
		declared := ItSelf(object.Ref{Kind: "ClusterPolicy", Name: cps[0].Name})
		p.ClusterPolicy = &declared
	}
	return p, nil
}

// applyFlags lets the driver flags win over what the objects say.
func (p *Profile) applyFlags(f Flags) error {
	if f.DriverImage != "" && (f.DriverVersion != "" || f.DriverRepository != "") {
		return errors.New("--driver-image is the whole image; give it without --driver-version and --driver-repository")
	}
	for i := range p.Drivers {
		d := &p.Drivers[i]
		if f.DriverImage != "" {
			d.Repository, d.Image, d.Version = "", f.DriverImage, ""
			p.From["repository"], p.From["image"], p.From["version"] = "--driver-image", "--driver-image", "--driver-image"
		}
		if f.DriverVersion != "" {
			d.Version, p.From["version"] = f.DriverVersion, "--driver-version"
		}
		if f.Precompiled {
			d.Precompiled, p.From["precompiled"] = true, "--precompiled"
		}
		if f.DriverRepository != "" {
			d.Repository, d.Image = splitRepository(f.DriverRepository)
			p.From["repository"], p.From["image"] = "--driver-repository", "--driver-repository"
		}
	}
	if p.From["version"] == "" {
		p.From["version"] = p.From["image"]
	}
	return nil
}

// setVersion takes the operator's version from the first source that
// gives one: --operator-version, its Deployment's image tag, the values
// file's operator.version, the chart's version; else it assumes the
// newest drvcheck knows. A version the user wrote that does not parse is
// an error; one read from an image or a chart is passed over.
func (p *Profile) setVersion(f Flags, objs Objects) error {
	for _, src := range p.versionSources(f, objs) {
		if src.value == "" {
			continue
		}
		v, err := ParseVersion(src.value)
		if err == nil {
			p.Version, p.VersionFrom = v, src.from
			return nil
		}
		if src.given != "" {
			return fmt.Errorf("%s: %w", src.given, err)
		}
	}
	p.Version, p.VersionFrom = Newest, versionAssumed
	return nil
}

// versionSource is one place the operator's version may come from.
type versionSource struct {
	value, from string
	given       string // names what the user wrote, whose error is theirs
}

// versionSources lists them, the first that gives a version winning.
func (p *Profile) versionSources(f Flags, objs Objects) []versionSource {
	out := []versionSource{{value: f.OperatorVersion, from: "--operator-version", given: "--operator-version"}}
	for _, img := range objs.Images {
		if ref, err := imageref.Parse(img); err == nil && strings.HasSuffix(ref.Repository, "/gpu-operator") {
			out = append(out, versionSource{value: ref.Tag, from: "the gpu-operator image " + img})
		}
	}
	out = append(out, versionSource{value: p.valuesVersion, from: "operator.version of the values file", given: "--operator-values: operator.version"})
	if p.chartVersion != "" {
		out = append(out, versionSource{value: p.chartVersion, from: "the gpu-operator chart version of " + p.Drivers[0].Owner()})
	}
	return out
}

// scopeUpgrades gives NVIDIADrivers the ClusterPolicy's upgradePolicy
// before v26.7, when each CR had no policy of its own.
func (p *Profile) scopeUpgrades() {
	if p.Mode != ModeNVIDIADriver || p.Version.AtLeast(26, 7) {
		return
	}
	var spec *UpgradePolicySpec
	where := "no ClusterPolicy among the inputs"
	if len(p.clusterUpgrade) == 1 {
		spec = p.clusterUpgrade[0].Spec.Driver.UpgradePolicy
		where = "ClusterPolicy/" + p.clusterUpgrade[0].Name + " spec.driver.upgradePolicy"
	}
	for i := range p.Drivers {
		p.Drivers[i].Upgrade = PolicyOf(spec, where+" (before v26.7 it rolls every NVIDIADriver's nodes)", false)
	}
}

// Scoped says whether each driver's nodes roll as their own scope
// (NVIDIADriver, v26.7+) rather than all managed nodes as one.
func (p *Profile) Scoped() bool {
	return p.Mode == ModeNVIDIADriver && p.Version.AtLeast(26, 7)
}

// check refuses a driver no node could get an image from, naming it.
func (p *Profile) check() error {
	defaults := 0
	for _, d := range p.Drivers {
		if err := d.check(); err != nil {
			return err
		}
		if err := d.Upgrade.Check(); err != nil {
			return err
		}
		if d.Default {
			defaults++
		}
	}
	if defaults > 1 {
		return errors.New("more than one NVIDIADriver sets default: true; the operator needs at most one")
	}
	return nil
}

// nvidiaDriverAux: an NVIDIADriver's spec.manager, spec.gds and
// spec.gdrcopy sit at the top of its spec.
func nvidiaDriverAux(manager AuxSpec, gds, gdrcopy *AuxSpec) []Aux {
	out := auxOf("spec.", manager, gds, gdrcopy)
	out[0].Field = "spec.manager"
	return out
}

func splitRepository(s string) (repository, image string) {
	i := strings.LastIndex(s, "/")
	if i < 0 {
		return "", s
	}
	return s[:i], s[i+1:]
}

func fromAll(source string) map[string]string {
	return map[string]string{"repository": source, "image": source, "version": source, "precompiled": source}
}

func isTrue(b *bool) bool { return b != nil && *b }

// WithVersion is the profile after an upgrade to the driver version v
// (plan --driver): a precompiled driver takes its branch, any other the
// version itself. A nil profile stays nil: the lab's model relabels nodes.
func (p *Profile) WithVersion(v string) *Profile {
	if p == nil {
		return nil
	}
	c := *p
	c.Drivers = slices.Clone(p.Drivers)
	c.From = maps.Clone(p.From)
	for i := range c.Drivers {
		d := &c.Drivers[i]
		d.Version = v
		if d.Precompiled {
			d.Version, _, _ = strings.Cut(v, ".")
		}
	}
	c.From["version"] = "--driver"
	return &c
}

// versionAssumed is VersionFrom when no input names the operator's release.
const versionAssumed = "assumed (the newest drvcheck knows; give --operator-version)"

func (p *Profile) versionAssumed() bool { return p.VersionFrom == versionAssumed }

// VersionKnown says whether the inputs or flags name the operator's
// release, rather than drvcheck assuming the newest it knows.
func (p *Profile) VersionKnown() bool { return p != nil && !p.versionAssumed() }

// HostRoot is spec.hostPaths.rootFS of the one ClusterPolicy read beside
// NVIDIADrivers: the host root of every NVIDIADriver's pods, which a diff
// compares (internal/operator/change). Nil when unset, or without exactly
// one such ClusterPolicy.
func (p *Profile) HostRoot() any {
	if p == nil || len(p.clusterUpgrade) != 1 {
		return nil
	}
	paths, _ := p.clusterUpgrade[0].Raw["hostPaths"].(map[string]any)
	return paths["rootFS"]
}

package operator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/object"
)

// The operator's own composition cases (reference §1.1, §1.2, §1.6).
func TestRef(t *testing.T) {
	digest := "sha256:" + strings.Repeat("ab", 32)
	cases := []struct {
		name string
		d    Driver
		want string
	}{
		{"helm default, not precompiled", Driver{Repository: "nvcr.io/nvidia", Image: "driver", Version: "595.91.07"}, "nvcr.io/nvidia/driver:595.91.07-ubuntu22.04"},
		{"precompiled branch (nvidiadriver_types_test)", Driver{Repository: "nvcr.io/nvidia", Image: "driver", Version: "535", Precompiled: true}, "nvcr.io/nvidia/driver:535-5.4.0-150-generic-ubuntu22.04"},
		{"precompiled full version, verbatim", Driver{Repository: "nvcr.io/nvidia", Image: "driver", Version: "550.90.07", Precompiled: true}, "nvcr.io/nvidia/driver:550.90.07-5.4.0-150-generic-ubuntu22.04"},
		{"private repository", Driver{Repository: "registry.corp/nv", Image: "driver", Version: "550.90.07"}, "registry.corp/nv/driver:550.90.07-ubuntu22.04"},
		{"digest taken as is", Driver{Repository: "nvcr.io/nvidia", Image: "driver", Version: digest}, "nvcr.io/nvidia/driver@" + digest},
		{"image alone, verbatim", Driver{Image: "mirror.corp/driver:550.90.07"}, "mirror.corp/driver:550.90.07-ubuntu22.04"},
	}
	for _, c := range cases {
		ref, err := c.d.Ref("5.4.0-150-generic", "ubuntu22.04")
		if got := ref.String(); err != nil || got != c.want {
			t.Errorf("%s: %q %v, want %q", c.name, got, err, c.want)
		}
	}
	for name, d := range map[string]Driver{
		"repository only":           {Object: object.Ref{Kind: "ClusterPolicy", Name: "cp"}, Repository: "nvcr.io/nvidia"},
		"no version":                {Object: object.Ref{Kind: "ClusterPolicy", Name: "cp"}, Repository: "nvcr.io/nvidia", Image: "driver"},
		"not a version":             {Object: object.Ref{Kind: "ClusterPolicy", Name: "cp"}, Repository: "r", Image: "driver", Version: "latest"},
		"precompiled digest":        {Object: object.Ref{Kind: "ClusterPolicy", Name: "cp"}, Repository: "r", Image: "driver", Version: digest, Precompiled: true},
		"short digest":              {Object: object.Ref{Kind: "ClusterPolicy", Name: "cp"}, Repository: "r", Image: "driver", Version: "sha256:abc"},
		"nothing set":               {Object: object.Ref{Kind: "ClusterPolicy", Name: "cp"}},
		"image, version alone":      {Object: object.Ref{Kind: "ClusterPolicy", Name: "cp"}, Image: "driver", Version: "550"},
		"image alone, no reference": {Object: object.Ref{Kind: "ClusterPolicy", Name: "cp"}, Image: "nvcr.io/NVIDIA/driver:550"},
	} {
		if _, err := d.Ref("k", "ubuntu22.04"); err == nil || !strings.HasPrefix(err.Error(), "ClusterPolicy/cp: ") {
			t.Errorf("%s: %v, want an error naming ClusterPolicy/cp", name, err)
		}
	}
}

func TestOSTag(t *testing.T) {
	v25, v263, v267 := Version{25, 10, 1}, Version{26, 3, 0}, Version{26, 7, 0}
	cases := []struct {
		id, ver string
		v       Version
		want    string
	}{
		{"ubuntu", "22.04", v267, "ubuntu22.04"},
		{"rhel", "9.4", v25, "rhel9.4"}, {"rhel", "9.4", v263, "rhel9.4"}, {"rhel", "9.4", v267, "rhel9"},
		{"rhel", "10.1", v25, "rhel10.1"}, {"rhel", "10.1", v263, "rhel10"}, {"rhel", "10.1", v267, "rhel10"},
		{"rocky", "9.8", v25, "rocky9.8"}, {"rocky", "9.8", v263, "rocky9"}, {"rocky", "9.8", v267, "rocky9"},
		{"ol", "9.5", v263, "ol9.5"}, {"ol", "9.5", v267, "ol9"},
		{"rhcos", "4.14", v267, "rhcos4.14"}, {"sles", "15.6", v267, "sles15.6"},
	}
	for _, c := range cases {
		if got := OSTag(c.id, c.ver, c.v); got != c.want {
			t.Errorf("OSTag(%s, %s, %s) = %s, want %s", c.id, c.ver, c.v, got, c.want)
		}
	}
	if _, err := ParseVersion("26.7"); err == nil {
		t.Error("ParseVersion accepted 26.7")
	}
	if v, err := ParseVersion("v26.3.1-rc.1"); err != nil || v != (Version{26, 3, 1}) {
		t.Errorf("ParseVersion: %v %v", v, err)
	}
}

func gpuNode(name string, labels map[string]string) *corev1.Node {
	l := map[string]string{
		"nvidia.com/gpu.present":                                  "true",
		"feature.node.kubernetes.io/kernel-version.full":          "5.15.0-119-generic",
		"feature.node.kubernetes.io/system-os_release.ID":         "ubuntu",
		"feature.node.kubernetes.io/system-os_release.VERSION_ID": "22.04",
	}
	for k, v := range labels {
		l[k] = v
	}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}}
}

func apply(t *testing.T, p *Profile, nodes ...*corev1.Node) []nodefacts.Facts {
	t.Helper()
	set := nodefacts.All(nodes)
	p.Apply(set, nodes)
	return set.List()
}

func clusterPolicy(name string, spec DriverSpec) *ClusterPolicy {
	cp := &ClusterPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}}
	cp.Spec.Driver = spec
	return cp
}

// A new node without a driver (no GFD labels) gets the operator's tag and
// no problem; a pre-installed node is not managed.
func TestClusterPolicyImage(t *testing.T) {
	p, err := Build(Flags{}, Objects{ClusterPolicies: []*ClusterPolicy{clusterPolicy("cluster-policy",
		DriverSpec{Repository: "nvcr.io/nvidia", Image: "driver", Version: "550.90.07"})},
		Images: []string{"nvcr.io/nvidia/gpu-operator:v25.10.1"}})
	if err != nil || p == nil {
		t.Fatalf("Build: %v", err)
	}
	fs := apply(t, p, gpuNode("new", nil), gpuNode("host", map[string]string{DeployDriver: "pre-installed"}))
	if f := fs[0]; f.Tag != "550.90.07-ubuntu22.04" || len(f.Problems) != 0 || !f.Image.Managed ||
		f.Image.Ref != "nvcr.io/nvidia/driver:550.90.07-ubuntu22.04" || f.Image.Owner != "ClusterPolicy/cluster-policy" {
		t.Errorf("new node: %+v", f)
	}
	if f := fs[1]; f.Image.Managed || f.Image.Reason != "nvidia.com/gpu.deploy.driver=pre-installed" {
		t.Errorf("pre-installed node: %+v", f.Image)
	}
	if p.Version != (Version{25, 10, 1}) || !strings.Contains(p.VersionFrom, "gpu-operator") {
		t.Errorf("operator version %s from %s", p.Version, p.VersionFrom)
	}
}

func TestFlagsWinAndVersionIsAssumed(t *testing.T) {
	p, err := Build(Flags{DriverVersion: "570", Precompiled: true, DriverRepository: "registry.corp/nv/driver"},
		Objects{ClusterPolicies: []*ClusterPolicy{clusterPolicy("cp", DriverSpec{Repository: "nvcr.io/nvidia", Image: "driver", Version: "550.90.07"})}})
	if err != nil {
		t.Fatal(err)
	}
	f := apply(t, p, gpuNode("n", nil))[0]
	if f.Image.Ref != "registry.corp/nv/driver:570-5.15.0-119-generic-ubuntu22.04" || p.From["version"] != "--driver-version" ||
		p.Version != Newest || !strings.HasPrefix(p.VersionFrom, "assumed") {
		t.Errorf("ref %s, from %v, version %s (%s)", f.Image.Ref, p.From, p.Version, p.VersionFrom)
	}
	if p, err := Build(Flags{}, Objects{}); p != nil || err != nil {
		t.Errorf("no configuration: %v %v, want the lab's model", p, err)
	}
}

func nvidiaDriver(name string, sel map[string]string, def bool, version string) *NVIDIADriver {
	d := &NVIDIADriver{ObjectMeta: metav1.ObjectMeta{Name: name}}
	d.Spec.Repository, d.Spec.Image, d.Spec.Version, d.Spec.NodeSelector, d.Spec.Default = "nvcr.io/nvidia", "driver", version, sel, def
	return d
}

// Owners as AssignOwners picks them; each pool its own OS tag.
func TestNVIDIADriverOwners(t *testing.T) {
	p, err := Build(Flags{}, Objects{NVIDIADrivers: []*NVIDIADriver{
		nvidiaDriver("a100", map[string]string{"pool": "a100"}, false, "550.90.07"),
		nvidiaDriver("h100", map[string]string{"pool": "h100"}, false, "570.86.15"),
		nvidiaDriver("both", map[string]string{"zone": "z1"}, false, "570.86.15"),
		nvidiaDriver("default", nil, true, "535.183.06"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	rhel := map[string]string{"feature.node.kubernetes.io/system-os_release.ID": "rhel", "feature.node.kubernetes.io/system-os_release.VERSION_ID": "9.4"}
	fs := apply(t, p,
		gpuNode("a", map[string]string{"pool": "a100"}),
		gpuNode("h", merge(rhel, map[string]string{"pool": "h100"})),
		gpuNode("other", nil),
		gpuNode("clash", map[string]string{"pool": "a100", "zone": "z1"}))
	want := []struct{ owner, ref, ownerErr string }{
		{"NVIDIADriver/a100", "nvcr.io/nvidia/driver:550.90.07-ubuntu22.04", ""},
		{"NVIDIADriver/h100", "nvcr.io/nvidia/driver:570.86.15-rhel9", ""},
		{"NVIDIADriver/default", "nvcr.io/nvidia/driver:535.183.06-ubuntu22.04", ""},
		{"", "", "NVIDIADrivers a100, both all select it; the operator assigns no owner"},
	}
	for i, w := range want {
		if img := fs[i].Image; img.Owner != w.owner || img.Ref != w.ref || img.OwnerError != w.ownerErr || (w.ownerErr != "") == img.Managed {
			t.Errorf("%s: %+v, want %+v", fs[i].Name, img, w)
		}
	}
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range []map[string]string{a, b} {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func TestBuildRefuses(t *testing.T) {
	two := []*ClusterPolicy{clusterPolicy("a", DriverSpec{}), clusterPolicy("b", DriverSpec{})}
	cases := []struct {
		f    Flags
		objs Objects
		want string
	}{
		{Flags{}, Objects{ClusterPolicies: two}, "ClusterPolicy/a and ClusterPolicy/b: the operator reconciles one ClusterPolicy"},
		{Flags{}, Objects{ClusterPolicies: []*ClusterPolicy{clusterPolicy("cp", DriverSpec{Repository: "nvcr.io/nvidia"})}}, "ClusterPolicy/cp: set repository, image and version together"},
		{Flags{DriverVersion: "550", OperatorVersion: "latest"}, Objects{}, `--operator-version: operator version "latest"`},
		{Flags{DriverVersion: "550.90"}, Objects{}, ""},
		{Flags{DriverVersion: "r550"}, Objects{}, `Flags/drvcheck: version "r550" is neither a driver branch`},
		{Flags{Values: "testdata/not-yaml.yaml"}, Objects{}, "--operator-values testdata/not-yaml.yaml: not a values file"},
		{Flags{Values: "testdata/missing.yaml"}, Objects{}, "--operator-values testdata/missing.yaml: no such file"},
	}
	for _, c := range cases {
		_, err := Build(c.f, c.objs)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("Build(%+v): %v, want %q", c.f, err, c.want)
		}
	}
}

// The chart's values: driver.* as the ClusterPolicy template maps them,
// operator.version as the release.
func TestValues(t *testing.T) {
	p, err := Build(Flags{Values: "testdata/values.yaml"}, Objects{})
	if err != nil {
		t.Fatal(err)
	}
	rocky := map[string]string{"feature.node.kubernetes.io/system-os_release.ID": "rocky", "feature.node.kubernetes.io/system-os_release.VERSION_ID": "9.8"}
	f := apply(t, p, gpuNode("n", rocky))[0]
	if f.Image.Ref != "nvcr.io/nvidia/driver:550-5.15.0-119-generic-rocky9.8" || p.Version != (Version{25, 10, 1}) || p.Mode != ModeClusterPolicy {
		t.Errorf("ref %s, version %s, mode %s", f.Image.Ref, p.Version, p.Mode)
	}
}

// One ClusterPolicy over two OSes: each managed node may get the other
// OS tag too; a pre-installed node takes no part.
func TestClusterPolicyCandidates(t *testing.T) {
	p, err := Build(Flags{DriverVersion: "550.90.07"}, Objects{})
	if err != nil {
		t.Fatal(err)
	}
	rocky := map[string]string{"feature.node.kubernetes.io/system-os_release.ID": "rocky", "feature.node.kubernetes.io/system-os_release.VERSION_ID": "9.8"}
	debian := map[string]string{"feature.node.kubernetes.io/system-os_release.ID": "debian", "feature.node.kubernetes.io/system-os_release.VERSION_ID": "12", DeployDriver: "pre-installed"}
	fs := apply(t, p, gpuNode("u", nil), gpuNode("r", rocky), gpuNode("d", debian))
	if got := fs[0].Image.Candidates; len(got) != 1 || got[0] != "550.90.07-rocky9" {
		t.Errorf("ubuntu node candidates %v", got)
	}
	if got := fs[1].Image.Candidates; len(got) != 1 || got[0] != "550.90.07-ubuntu22.04" {
		t.Errorf("rocky node candidates %v", got)
	}
	if got := fs[2].Image.Candidates; len(got) != 0 {
		t.Errorf("pre-installed node candidates %v", got)
	}
}

// What the chart installs rolls the driver: a values file lies over the
// chart's values (autoUpgrade true), and the flags alone stand for the
// chart's defaults; a ClusterPolicy written by hand without autoUpgrade
// keeps the CRD's false.
func TestChartPolicyRolls(t *testing.T) {
	for _, c := range []struct {
		name   string
		spec   *UpgradePolicySpec
		auto   bool
		maxPar int
	}{
		{"no upgradePolicy", nil, true, DefaultMaxParallel},
		{"autoUpgrade unset", &UpgradePolicySpec{MaxParallelUpgrades: ptr(3)}, true, 3},
		{"autoUpgrade false", &UpgradePolicySpec{AutoUpgrade: ptr(false)}, false, DefaultMaxParallel},
	} {
		p := ChartPolicy(c.spec, "values.yaml")
		if p.AutoUpgrade != c.auto || p.MaxParallel != c.maxPar || p.MaxUnavailable != DefaultMaxUnavailable || p.PodDeletion.TimeoutSeconds != DefaultPhaseTimeout {
			t.Errorf("%s: %+v", c.name, p)
		}
	}
	for _, f := range []Flags{{Values: "testdata/values.yaml"}, {DriverVersion: "550", Precompiled: true}} {
		p, err := Build(f, Objects{})
		if err != nil || !p.Drivers[0].Upgrade.AutoUpgrade || p.Drivers[0].Upgrade.MaxParallel != DefaultMaxParallel {
			t.Errorf("%+v: %v %+v", f, err, p.Drivers[0].Upgrade)
		}
	}
	if p := PolicyOf(&UpgradePolicySpec{}, "ClusterPolicy/x", false); p.AutoUpgrade {
		t.Errorf("a ClusterPolicy without autoUpgrade: %+v", p)
	}
}

func ptr[T any](v T) *T { return &v }

// Values as installers write them: `version: 590` unquoted (Garden
// Linux's installer, offline install guides, HelmChart valuesContent),
// `usePrecompiled: "true"` quoted. The chart's templates write version as
// a quoted string and usePrecompiled as text YAML reads back as a bool,
// so the operator sees "590" and true; drvcheck must too.
func TestValuesTypedAsTheChartTypesThem(t *testing.T) {
	dir := t.TempDir()
	write := func(content string) string {
		p := filepath.Join(dir, "values.yaml")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p, err := Build(Flags{Values: write("driver:\n  usePrecompiled: \"true\"\n  version: 590\n  repository: registry.local/nvidia\n")}, Objects{})
	if err != nil {
		t.Fatal(err)
	}
	d := p.Drivers[0]
	if d.Version != "590" || !d.Precompiled || d.Repository != "registry.local/nvidia" || d.Image != "driver" {
		t.Errorf("driver %+v; want version \"590\", precompiled, the file's repository", d)
	}
	if p, err = Build(Flags{Values: write("driver:\n  version: 535.10\n")}, Objects{}); err != nil || p.Drivers[0].Version != "535.1" {
		t.Errorf("a float is printed as Helm prints it (535.1): %+v %v", p, err)
	}
	_, err = Build(Flags{Values: write("driver:\n  version: [550, 570]\n")}, Objects{})
	if err == nil || !strings.Contains(err.Error(), "driver.version: want a scalar") {
		t.Errorf("a list where the version goes: %v", err)
	}
}

// Values that leave driver.version out get the chart's default of the
// operator's release (values.yaml at its tag), as the operator does; an
// unknown or unnamed release leaves the image unresolved, not guessed.
func TestChartDefaultDriverVersion(t *testing.T) {
	dir := t.TempDir()
	values := filepath.Join(dir, "values.yaml")
	if err := os.WriteFile(values, []byte("operator: {version: v24.3.0}\ndriver: {enabled: true}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Build(Flags{Values: values}, Objects{})
	if err != nil || p.Drivers[0].Version != "550.54.15" || p.Drivers[0].Unresolved != "" {
		t.Fatalf("%+v %v; want 550.54.15, the chart's default at v24.3.0", p, err)
	}
	for flags, want := range map[string]string{"": "no input names the operator's release", "v99.1.0": "knows no default for gpu-operator v99.1.0"} {
		p, err := Build(Flags{Values: values, OperatorVersion: flags}, Objects{})
		if flags == "" {
			if err = os.WriteFile(values, []byte("driver: {enabled: true}\n"), 0o644); err == nil {
				p, err = Build(Flags{Values: values}, Objects{})
			}
		}
		if err != nil || !strings.Contains(p.Drivers[0].Unresolved, want) {
			t.Errorf("release %q: %+v %v; want %q", flags, p.Drivers[0], err, want)
		}
	}
}

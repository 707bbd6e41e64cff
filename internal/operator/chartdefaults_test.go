package operator

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/imageref"
)

// chartReleases are the gpu-operator releases from v23.9.0 (the tags of
// NVIDIA/gpu-operator, release candidates left out), in order, with the
// default driver.version defaultVersion answered for each before the
// table grew to the other defaults. Listed here rather than read from the
// tags, which CI does not have.
var chartReleases = []struct{ release, driver string }{
	{"v23.9.0", "535.104.12"},
	{"v23.9.1", "535.129.03"},
	{"v23.9.2", "550.54.14"},
	{"v24.3.0", "550.54.15"},
	{"v24.6.0", "550.90.07"},
	{"v24.6.1", "550.90.07"},
	{"v24.6.2", "550.90.07"},
	{"v24.9.0", "550.127.05"},
	{"v24.9.1", "550.127.08"},
	{"v24.9.2", "550.144.03"},
	{"v25.3.0", "570.124.06"},
	{"v25.3.1", "570.148.08"},
	{"v25.3.2", "570.148.08"},
	{"v25.3.3", "580.82.07"},
	{"v25.3.4", "580.82.07"},
	{"v25.10.0", "580.95.05"},
	{"v25.10.1", "580.105.08"},
	{"v26.3.0", "580.126.20"},
	{"v26.3.1", "580.126.20"},
	{"v26.3.2", "580.126.20"},
	{"v26.3.3", "580.126.20"},
	{"v26.7.0", "595.91.07"},
}

// Every release is there, once, in order, and defaultVersion answers
// for each what it answered before.
func TestChartDefaultsReleases(t *testing.T) {
	if len(chartDefaults()) != len(chartReleases) {
		t.Fatalf("chartdefaults.json has %d releases; want %d", len(chartDefaults()), len(chartReleases))
	}
	var previous Version
	for i, want := range chartReleases {
		v, err := ParseVersion(chartDefaults()[i].Release)
		if err != nil || chartDefaults()[i].Release != want.release {
			t.Errorf("release %d is %q (%v); want %s", i, chartDefaults()[i].Release, err, want.release)
		}
		if i > 0 && compareVersions(previous, v) >= 0 {
			t.Errorf("%s follows %s: the releases are not in order", v, previous)
		}
		previous = v
		if got, ok := defaultVersion(v); !ok || got != want.driver {
			t.Errorf("defaultVersion(%s) = %q, %v; want %q", v, got, ok, want.driver)
		}
	}
	if _, ok := DefaultsOf(Version{99, 1, 0}); ok {
		t.Error("DefaultsOf(v99.1.0) answers; want no release known")
	}
}

func compareVersions(a, b Version) int {
	return slices.Compare([]int{a.Major, a.Minor, a.Patch}, []int{b.Major, b.Minor, b.Patch})
}

// chartKeys are the keys every release's values.yaml has, and so its
// object in chartdefaults.json.
var chartKeys = []string{
	"driver.enabled", "driver.nvidiaDriverCRD.enabled", "driver.nvidiaDriverCRD.deployDefaultCR",
	"driver.usePrecompiled", "driver.repository", "driver.image", "driver.version",
	"driver.rdma.enabled", "driver.rdma.useHostMofed",
	"driver.upgradePolicy.autoUpgrade", "driver.upgradePolicy.maxParallelUpgrades", "driver.upgradePolicy.maxUnavailable",
	"driver.upgradePolicy.waitForCompletion.timeoutSeconds", "driver.upgradePolicy.waitForCompletion.podSelector",
	"driver.upgradePolicy.gpuPodDeletion.force", "driver.upgradePolicy.gpuPodDeletion.timeoutSeconds",
	"driver.upgradePolicy.gpuPodDeletion.deleteEmptyDir",
	"driver.upgradePolicy.drain.enable", "driver.upgradePolicy.drain.force", "driver.upgradePolicy.drain.podSelector",
	"driver.upgradePolicy.drain.timeoutSeconds", "driver.upgradePolicy.drain.deleteEmptyDir",
	"driver.manager.repository", "driver.manager.image", "driver.manager.version", "driver.manager.env",
	"gds.enabled", "gds.repository", "gds.image", "gds.version",
}

// releaseKeys are the keys only some releases' values.yaml have: from
// the release from on, and before the release before ("" for none).
// useOpenKernelModules came in v23.9.1 and is commented out, a no-op,
// from v25.3.0, where kernelModuleType replaced it; gdrcopy came in
// v24.3.0.
var releaseKeys = []struct{ path, from, before string }{
	{"driver.kernelModuleType", "v25.3.0", ""},
	{"driver.useOpenKernelModules", "v23.9.1", "v25.3.0"},
	{"gdrcopy.enabled", "v24.3.0", ""},
	{"gdrcopy.repository", "v24.3.0", ""},
	{"gdrcopy.image", "v24.3.0", ""},
	{"gdrcopy.version", "v24.3.0", ""},
}

// Each release's object has every key its values.yaml has, and no key
// it has not.
func TestChartDefaultsKeys(t *testing.T) {
	var raw []map[string]any
	if err := json.Unmarshal(chartDefaultsJSON, &raw); err != nil {
		t.Fatal(err)
	}
	for i, obj := range raw {
		v, _ := ParseVersion(chartDefaults()[i].Release) // TestChartDefaultsReleases checks it
		for _, path := range chartKeys {
			if !has(obj, path) {
				t.Errorf("%s: no %s", v, path)
			}
		}
		for _, k := range releaseKeys {
			if want := inRange(v, k.from, k.before); has(obj, k.path) != want {
				t.Errorf("%s: has %s is %v; want %v (from %s, before %q)", v, k.path, !want, want, k.from, k.before)
			}
		}
	}
}

// has says whether obj holds the dotted path.
func has(obj map[string]any, path string) bool {
	var v any = obj
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if v, ok = m[k]; !ok {
			return false
		}
	}
	return true
}

func inRange(v Version, from, before string) bool {
	f, _ := ParseVersion(from)
	if compareVersions(v, f) < 0 {
		return false
	}
	b, err := ParseVersion(before) // "" is no release: no end
	return err != nil || compareVersions(v, b) < 0
}

// Each release's images make references that parse, its driver version
// is a full one, and it cites its tag's values.yaml with the blocks'
// lines in the file's order.
func TestChartDefaultsValues(t *testing.T) {
	for _, d := range chartDefaults() {
		if !fullRe.MatchString(d.Driver.Version) {
			t.Errorf("%s: driver.version %q is no full driver version", d.Release, d.Driver.Version)
		}
		images := map[string]ImageDefaults{
			"driver":         {d.Driver.Repository, d.Driver.Image, d.Driver.Version},
			"driver.manager": d.Driver.Manager.ImageDefaults,
			"gds":            d.GDS.ImageDefaults,
		}
		blocks := []string{"driver", "driver.version", "driver.upgradePolicy", "driver.manager", "gds"}
		if d.GDRCopy != nil {
			images["gdrcopy"] = d.GDRCopy.ImageDefaults
			blocks = append(blocks, "gdrcopy")
		}
		for name, im := range images {
			if err := parses(im); err != nil {
				t.Errorf("%s: %s: %v", d.Release, name, err)
			}
		}
		if want := "NVIDIA/gpu-operator@" + d.Release + " deployments/gpu-operator/values.yaml"; d.Source != want {
			t.Errorf("%s: source %q; want %q", d.Release, d.Source, want)
		}
		checkLines(t, d, blocks)
	}
}

// parses says why an image's reference is not one, if it is not.
func parses(im ImageDefaults) error {
	if im.Repository == "" || im.Image == "" || im.Version == "" {
		return fmt.Errorf("%+v: want a repository, an image and a version", im)
	}
	_, err := imageref.Parse(im.Repository + "/" + im.Image + ":" + im.Version)
	return err
}

// checkLines wants a line for each block, in the file's order, and none
// for a block the release has not.
func checkLines(t *testing.T, d ChartDefaults, blocks []string) {
	t.Helper()
	if len(d.Lines) != len(blocks) {
		t.Errorf("%s: lines %v; want those of %v", d.Release, d.Lines, blocks)
	}
	for i, b := range blocks {
		if d.Lines[b] <= 0 || i > 0 && d.Lines[b] <= d.Lines[blocks[i-1]] {
			t.Errorf("%s: lines %v; want %v, each after the one before", d.Release, d.Lines, blocks)
		}
	}
}

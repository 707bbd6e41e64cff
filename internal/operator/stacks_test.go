package operator

import (
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/object"
)

// The chart's values declare a ClusterPolicy unless clusterPolicy.deployCR
// is false, and a GPUCluster when gpuCluster.deployCR is true
// (deployments/gpu-operator/values.yaml:563-576 at v26.7.0), each read by
// a template's {{ if }}: the string "false" is true there.
func TestChartStacks(t *testing.T) {
	src := object.Ref{Kind: "HelmRelease", Namespace: "gpu-operator", Name: "gpu-operator"}
	for _, c := range []struct {
		name        string
		values      map[string]any
		clusterPol  bool
		gpuClusters int
	}{
		{"defaults", map[string]any{}, true, 0},
		{"dra forgotten half", map[string]any{"gpuCluster": map[string]any{"deployCR": true}}, true, 1},
		{"dra as the values say", map[string]any{"gpuCluster": map[string]any{"deployCR": true}, "clusterPolicy": map[string]any{"deployCR": false}}, false, 1},
		{"a quoted false is true", map[string]any{"gpuCluster": map[string]any{"deployCR": "false"}}, true, 1},
		{"an empty string is false", map[string]any{"clusterPolicy": map[string]any{"deployCR": ""}}, false, 0},
	} {
		p, err := fromValueMap(c.values, src, "values")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if (p.ClusterPolicy != nil) != c.clusterPol || len(p.GPUClusters) != c.gpuClusters {
			t.Errorf("%s: ClusterPolicy %v, GPUClusters %v", c.name, p.ClusterPolicy, p.GPUClusters)
		}
		for _, g := range p.GPUClusters {
			if g.Name != chartGPUCluster || g.Where != src {
				t.Errorf("%s: %+v, want GPUCluster/gpu-cluster declared by %s", c.name, g, src)
			}
		}
	}
}

// The chart renders its release's defaults under the values: maps merged
// key by key, anything else replaced, the defaults' table untouched.
func TestRenderCharts(t *testing.T) {
	p, err := fromValueMap(map[string]any{"driver": map[string]any{"enabled": true, "upgradePolicy": map[string]any{"maxParallelUpgrades": 2.0}}},
		object.Ref{Kind: "HelmRelease", Name: "gpu-operator"}, "values")
	if err != nil {
		t.Fatal(err)
	}
	p.Version, p.VersionFrom = Version{24, 9, 0}, "the chart's version"
	p.renderCharts()
	d := p.Drivers[0].Rendered["driver"].(map[string]any)
	policy := d["upgradePolicy"].(map[string]any)
	if d["version"] != "550.127.05" || policy["maxParallelUpgrades"] != 2.0 || policy["maxUnavailable"] != "25%" {
		t.Errorf("rendered %v", d)
	}
	if chartValues()["v24.9.0"]["driver"].(map[string]any)["upgradePolicy"].(map[string]any)["maxParallelUpgrades"] != 1.0 {
		t.Error("the defaults' table was written")
	}
	p.Version, p.VersionFrom = Newest, versionAssumed
	p.Drivers[0].Rendered = nil
	if p.renderCharts(); p.Drivers[0].Rendered != nil {
		t.Error("an assumed release was rendered")
	}
}

// A precompiled driver with a digest is a configuration the operator
// refuses, which DRV009 reports: the profile is built, not an exit 2.
func TestPrecompiledDigestIsRefusedNotAnError(t *testing.T) {
	digest := "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	cp := &ClusterPolicy{}
	cp.Name = "cluster-policy"
	yes := true
	cp.Spec.Driver.UsePrecompiled = &yes
	cp.Spec.Driver.Repository, cp.Spec.Driver.Image, cp.Spec.Driver.Version = "nvcr.io/nvidia", "driver", digest
	p, err := Build(Flags{}, Objects{ClusterPolicies: []*ClusterPolicy{cp}})
	if err != nil {
		t.Fatal(err)
	}
	if why := p.Drivers[0].Refusal(); !strings.Contains(why, "InvalidImageName") {
		t.Errorf("ClusterPolicy: %q", why)
	}
	if _, err := p.Drivers[0].Ref("k", "ubuntu22.04"); err == nil {
		t.Error("a precompiled digest made a reference")
	}
	d := Driver{Object: object.Ref{Kind: "NVIDIADriver", Name: "n"}, Precompiled: true, Version: digest}
	if why := d.Refusal(); !strings.Contains(why, "refuses it") {
		t.Errorf("NVIDIADriver: %q", why)
	}
	if (Driver{Precompiled: true, Version: "580"}).Refusal() != "" || (Driver{Version: digest}).Refusal() != "" {
		t.Error("a refusal where there is none")
	}
}

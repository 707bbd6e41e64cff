package change

import (
	"slices"
	"testing"

	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/internal/operator"
)

func driverWith(kind string, spec map[string]any) operator.Driver {
	return operator.Driver{Object: object.Ref{Kind: kind, Name: "x"}, Spec: spec}
}

// release is the operator's release major.minor.patch.
func release(major, minor, patch int) operator.Version {
	return operator.Version{Major: major, Minor: minor, Patch: patch}
}

func profileOf(v operator.Version, ds ...operator.Driver) *operator.Profile {
	return &operator.Profile{Version: v, Drivers: ds}
}

// The classes of fields, from the operator's source: what each change
// does to an NVIDIADriver's and a ClusterPolicy's pods.
func TestCompareClassifiesFields(t *testing.T) {
	v267 := release(26, 7, 0)
	for _, c := range []struct {
		name       string
		kind       string
		base, head map[string]any
		want       string
		fields     []string
	}{
		{"NVIDIADriver labels", "NVIDIADriver", map[string]any{"version": "580"}, map[string]any{"version": "580", "labels": map[string]any{"a": "b"}}, RestartOnly, []string{"spec.labels.a"}},
		{"NVIDIADriver manager", "NVIDIADriver", map[string]any{"manager": map[string]any{"version": "v0.12.0"}}, map[string]any{"manager": map[string]any{"version": "v0.12.1"}}, FullRollout, []string{"spec.manager.version"}},
		{"NVIDIADriver upgradePolicy", "NVIDIADriver", map[string]any{}, map[string]any{"upgradePolicy": map[string]any{"maxParallelUpgrades": 2}}, NoOp, []string{"spec.upgradePolicy.maxParallelUpgrades"}},
		{"NVIDIADriver kernelModuleType", "NVIDIADriver", map[string]any{"kernelModuleType": "auto"}, map[string]any{"kernelModuleType": "open"}, FullRollout, []string{"spec.kernelModuleType"}},
		{"ClusterPolicy resources", "ClusterPolicy", map[string]any{"driver": map[string]any{}}, map[string]any{"driver": map[string]any{"resources": map[string]any{"limits": map[string]any{"memory": "1Gi"}}}}, RestartOnly, []string{"spec.driver.resources.limits.memory"}},
		{"ClusterPolicy gds", "ClusterPolicy", map[string]any{"gds": map[string]any{"enabled": false}}, map[string]any{"gds": map[string]any{"enabled": true}}, FullRollout, []string{"spec.gds.enabled"}},
		{"ClusterPolicy toolkit", "ClusterPolicy", map[string]any{"toolkit": map[string]any{"version": "a"}}, map[string]any{"toolkit": map[string]any{"version": "b"}}, NoOp, []string{"spec.toolkit.version"}},
		{"ClusterPolicy unknown driver field", "ClusterPolicy", map[string]any{"driver": map[string]any{}}, map[string]any{"driver": map[string]any{"newField": true}}, FullRollout, []string{"spec.driver.newField"}},
		{"numbers as read", "ClusterPolicy", map[string]any{"driver": map[string]any{"x": int64(1)}}, map[string]any{"driver": map[string]any{"x": 1.0}}, NoOp, nil},
	} {
		got := Compare(profileOf(v267, driverWith(c.kind, c.base)), profileOf(v267, driverWith(c.kind, c.head)))
		var paths []string
		for _, f := range got[0].Fields {
			paths = append(paths, f.Path)
		}
		if got[0].Kind != c.want || !slices.Equal(paths, c.fields) {
			t.Errorf("%s: %s %v, want %s %v", c.name, got[0].Kind, paths, c.want, c.fields)
		}
	}
}

// The chart's values carry the ClusterPolicy's names without spec.
func TestCompareValues(t *testing.T) {
	v := release(26, 7, 0)
	b := operator.Driver{Object: object.Ref{Kind: "Values", Name: "a.yaml"}, Chart: true, Spec: map[string]any{"driver": map[string]any{"manager": map[string]any{"version": "v0.12.0"}}, "nfd": map[string]any{"enabled": true}}}
	h := operator.Driver{Object: object.Ref{Kind: "Values", Name: "b.yaml"}, Chart: true, Spec: map[string]any{"driver": map[string]any{"manager": map[string]any{"version": "v0.12.1"}}, "nfd": map[string]any{"enabled": false}}}
	got := Compare(profileOf(v, b), profileOf(v, h))
	if got[0].Kind != FullRollout || len(got[0].Fields) != 2 || got[0].Fields[0].Path != "driver.manager.version" || got[0].Fields[1].Class != NotInPod {
		t.Errorf("%+v", got)
	}
}

// An operator upgrade, and a release before restart-only upgrades.
func TestCompareOperatorVersions(t *testing.T) {
	labels := map[string]any{"daemonsets": map[string]any{"labels": map[string]any{"a": "b"}}}
	same := driverWith("ClusterPolicy", map[string]any{})
	if got := Compare(profileOf(release(25, 10, 1), same), profileOf(release(26, 7, 0), same)); got[0].Kind != FullRollout || got[0].Why == "" {
		t.Errorf("operator upgrade: %+v", got)
	}
	if got := Compare(profileOf(release(25, 10, 1), same), profileOf(release(25, 10, 1), driverWith("ClusterPolicy", labels))); got[0].Kind != FullRollout {
		t.Errorf("v25.10 labels: %+v", got)
	}
	if got := Compare(profileOf(release(26, 7, 0), same), profileOf(release(26, 7, 0), driverWith("ClusterPolicy", labels))); got[0].Kind != RestartOnly {
		t.Errorf("v26.7 labels: %+v", got)
	}
}

// Between two releases from v26.7 the digest decides: the same
// configuration is restart-only at most, a driver change a full rollout.
func TestCompareReleasesFromV26_7(t *testing.T) {
	same := driverWith("ClusterPolicy", map[string]any{"driver": map[string]any{"version": "595.91.07"}})
	got := Compare(profileOf(release(26, 7, 0), same), profileOf(release(26, 7, 1), same))
	if got[0].Kind != RestartOnly || got[0].Why == "" {
		t.Errorf("same configuration: %+v", got)
	}
	newer := driverWith("ClusterPolicy", map[string]any{"driver": map[string]any{"version": "595.100.01"}})
	if got := Compare(profileOf(release(26, 7, 0), same), profileOf(release(26, 7, 1), newer)); got[0].Kind != FullRollout {
		t.Errorf("a new driver: %+v", got)
	}
}

// What the chart renders is compared when both sides have it: a field one
// side writes out at the chart's default is no change, and a container
// off on both sides changes no pod, whatever its defaults do.
func TestCompareRendered(t *testing.T) {
	v := release(24, 9, 0)
	chart := func(spec, rendered map[string]any) operator.Driver {
		return operator.Driver{Object: object.Ref{Kind: "HelmRelease", Name: "gpu-operator"}, Chart: true, Spec: spec, Rendered: rendered}
	}
	b := chart(map[string]any{"driver": map[string]any{"enabled": true}},
		map[string]any{"driver": map[string]any{"enabled": true, "version": "535.104.12"}, "gds": map[string]any{"enabled": false, "version": "2.16.1"}})
	h := chart(map[string]any{},
		map[string]any{"driver": map[string]any{"enabled": true, "version": "550.127.05"}, "gds": map[string]any{"enabled": false, "version": "2.20.5"}, "gdrcopy": map[string]any{"enabled": false}})
	got := Compare(profileOf(v, b), profileOf(v, h))
	if len(got[0].Fields) != 1 || got[0].Fields[0].Path != "driver.version" || got[0].Fields[0].Base != "535.104.12" {
		t.Errorf("%+v", got[0].Fields)
	}
	// Without the rendering on one side, the specs as read.
	h.Rendered = nil
	if got := Compare(profileOf(v, b), profileOf(v, h)); len(got[0].Fields) != 1 || got[0].Fields[0].Path != "driver.enabled" {
		t.Errorf("raw: %+v", got[0].Fields)
	}
}

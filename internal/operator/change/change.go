package change

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/drvcheck/drvcheck/internal/operator"
)

// What a configuration change does to the driver pods of a scope, as the
// GPU Operator v26.7 rolls it. The operator hashes the driver pod's
// configuration into DRIVER_CONFIG_DIGEST (internal/config/
// driver_config_digest.go:79-141); when a node's running driver pod has the
// digest of the new template, the upgrade library cordons the node and
// restarts the pod, with no GPU-pod deletion and no drain
// (internal/predicates/restart_only.go:36-50; k8s-operator-libs
// d720f2557494 pkg/upgrade/upgrade_inplace.go:134-178).
const (
	NoOp        = "no-op"        // the driver DaemonSet's template is unchanged
	RestartOnly = "restart-only" // the template changes, its digest does not
	FullRollout = "full-rollout" // the digest changes: GPU pods deleted, drain fallback
	Removed     = "removed"      // a node no longer gets a driver pod: deleted at once
)

// Field classes: where a field of the operator's objects ends up.
const (
	InDigest   = "digest"   // in DRIVER_CONFIG_DIGEST
	InTemplate = "template" // in the driver pod template, not in the digest
	NotInPod   = "none"     // not in the driver DaemonSet
	Unknown    = "unknown"  // drvcheck does not know: taken as in the digest
)

// FieldChange is one field that differs between two configurations.
type FieldChange struct {
	Path   string `json:"path"` // e.g. spec.driver.manager.version
	Base   string `json:"base"` // as JSON; "" when unset
	Head   string `json:"head"`
	Class  string `json:"class"`
	Source string `json:"source"` // where the operator's code puts it
}

// ScopeChange is what a change does to one driver's pods.
type ScopeChange struct {
	Owner  string        `json:"owner"`
	Kind   string        `json:"kind"`
	Fields []FieldChange `json:"fields"`
	// Why says what decided Kind beyond the fields: the operator's
	// version, a release without restart-only upgrades.
	Why string `json:"why,omitempty"`
}

// fieldRule classes the fields under a path of an object's spec.
type fieldRule struct{ path, class, source string }

// clusterPolicyFields are the ClusterPolicy's fields (and the chart's
// values, which carry the same names under driver, gds, gdrcopy,
// daemonsets and hostPaths), from the operator's TransformDriver and
// extractDriverInstallConfig (controllers/object_controls.go at v26.7.0)
// and its tests of what must not change the digest
// (controllers/transforms_test.go:4828-4889). The longest path wins.
var clusterPolicyFields = []fieldRule{
	{"driver", Unknown, "a driver field drvcheck does not know"},
	{"driver.repository", InDigest, "the driver image (object_controls.go:3559-3591)"},
	{"driver.image", InDigest, "the driver image (object_controls.go:3559-3591)"},
	{"driver.version", InDigest, "the driver image (object_controls.go:3559-3591)"},
	{"driver.usePrecompiled", InDigest, "the driver image names the kernel (object_controls.go:3383-3394)"},
	{"driver.kernelModuleType", InDigest, "KERNEL_MODULE_TYPE in the driver's env (object_controls.go:3591-3597)"},
	{"driver.env", InDigest, "the driver container's env (object_controls.go:3673-3677)"},
	{"driver.args", InDigest, "the driver container's args (object_controls.go:3587-3589)"},
	{"driver.secretEnv", InDigest, "the driver's envFrom secret (object_controls.go:3736-3742)"},
	{"driver.rdma", InDigest, "the nvidia-peermem container and RDMA env (object_controls.go:2955-2960, 2977-3022, 3619-3634)"},
	{"driver.manager", InDigest, "the k8s-driver-manager image and env (object_controls.go:2937-2975)"},
	{"driver.manager.imagePullPolicy", InTemplate, "imagePullPolicy is not hashed (transforms_test.go:4828-4889)"},
	{"driver.manager.imagePullSecrets", InTemplate, "imagePullSecrets are not hashed"},
	{"driver.licensingConfig", InDigest, "a volume and mount of the driver (object_controls.go:3637-3639)"},
	{"driver.virtualTopology", InDigest, "a volume and mount of the driver (object_controls.go:3642-3661)"},
	{"driver.kernelModuleConfig", InDigest, "a volume and mount of the driver (object_controls.go:3664-3671)"},
	{"driver.repoConfig", InDigest, "a volume and mount of the driver (object_controls.go:3709-3720)"},
	{"driver.certConfig", InDigest, "a volume and mount of the driver (object_controls.go:3723-3734)"},
	{"driver.resources", InTemplate, "resources are not hashed (driver_config_digest.go:79-141)"},
	{"driver.startupProbe", InTemplate, "probes are not hashed"},
	{"driver.livenessProbe", InTemplate, "probes are not hashed"},
	{"driver.readinessProbe", InTemplate, "probes are not hashed"},
	{"driver.imagePullPolicy", InTemplate, "imagePullPolicy is not hashed"},
	{"driver.imagePullSecrets", InTemplate, "imagePullSecrets are not hashed"},
	{"driver.hostNetwork", InTemplate, "applied after the digest (object_controls.go:1082)"},
	{"driver.upgradePolicy", NotInPod, "the upgrade controller's policy, not part of the DaemonSet"},
	{"driver.useOpenKernelModules", NotInPod, "deprecated and read by no code (clusterpolicy_types.go:574-579)"},
	{"driver.enabled", InDigest, "turns the driver DaemonSet on or off"},
	{"driver.useNvidiaDriverCRD", InDigest, "moves the driver to NVIDIADriver DaemonSets"},
	{"driver.nvidiaDriverCRD", InDigest, "moves the driver to NVIDIADriver DaemonSets (chart values)"},
	{"gds", InDigest, "the nvidia-fs container (object_controls.go:3025-3116)"},
	{"gds.args", NotInPod, "never applied to the container (object_controls.go:3025-3116)"},
	{"gds.imagePullPolicy", InTemplate, "imagePullPolicy is not hashed"},
	{"gds.imagePullSecrets", InTemplate, "imagePullSecrets are not hashed"},
	{"gdrcopy", InDigest, "the gdrcopy container (object_controls.go:3118-3209)"},
	{"gdrcopy.args", NotInPod, "never applied to the container (object_controls.go:3118-3209)"},
	{"gdrcopy.imagePullPolicy", InTemplate, "imagePullPolicy is not hashed"},
	{"gdrcopy.imagePullSecrets", InTemplate, "imagePullSecrets are not hashed"},
	{"hostPaths", InDigest, "host-root and driver-install-dir volumes (object_controls.go:766-769, 2731-2735)"},
	{"daemonsets", Unknown, "a daemonsets field drvcheck does not know"},
	{"daemonsets.labels", InTemplate, "applied after the digest (object_controls.go:779, 786-810)"},
	{"daemonsets.annotations", InTemplate, "applied after the digest (object_controls.go:779, 786-810)"},
	{"daemonsets.tolerations", InTemplate, "not hashed (object_controls.go:813-835)"},
	{"daemonsets.priorityClassName", InTemplate, "not hashed (object_controls.go:813-835)"},
	{"daemonsets.podSecurityContext", InTemplate, "not hashed (object_controls.go:813-835)"},
}

// nvidiaDriverFields are an NVIDIADriver's, from buildDriverInstallConfig
// (internal/state/driver.go:740-838 at v26.7.0), which fills the digest
// from the CR.
var nvidiaDriverFields = []fieldRule{
	{"", Unknown, "a field drvcheck does not know"},
	{"driverType", InDigest, "driver.go:746"},
	{"kernelModuleType", InDigest, "driver.go:747"},
	{"repository", InDigest, "the driver image (driver.go:744)"},
	{"image", InDigest, "the driver image (driver.go:744)"},
	{"version", InDigest, "the driver image (driver.go:744)"},
	{"usePrecompiled", InDigest, "driver.go:819-822"},
	{"args", InDigest, "driver.go:748"},
	{"secretEnv", InDigest, "driver.go:749"},
	{"env", InDigest, "driver.go:751"},
	{"manager", InDigest, "the manager image and env (driver.go:745, 752)"},
	{"manager.imagePullPolicy", InTemplate, "not hashed"},
	{"manager.imagePullSecrets", InTemplate, "not hashed"},
	{"licensingConfig", InDigest, "driver.go:754-756"},
	{"virtualTopologyConfig", InDigest, "driver.go:757-768"},
	{"kernelModuleConfig", InDigest, "driver.go:757-768"},
	{"repoConfig", InDigest, "driver.go:757-768"},
	{"certConfig", InDigest, "driver.go:757-768"},
	{"rdma", InDigest, "driver.go:771-779"},
	{"gds", InDigest, "driver.go:781-789"},
	{"gdrcopy", InDigest, "driver.go:791-799"},
	{"labels", InTemplate, "not hashed (transforms_test.go:4828-4889)"},
	{"annotations", InTemplate, "not hashed"},
	{"tolerations", InTemplate, "not hashed"},
	{"nodeAffinity", InTemplate, "not hashed"},
	{"nodeSelector", InTemplate, "the DaemonSet's nodeSelector, not hashed; nodes that move between NVIDIADrivers are judged on their own"},
	{"priorityClassName", InTemplate, "not hashed"},
	{"resources", InTemplate, "not hashed"},
	{"imagePullPolicy", InTemplate, "not hashed"},
	{"imagePullSecrets", InTemplate, "not hashed"},
	{"startupProbe", InTemplate, "not hashed"},
	{"livenessProbe", InTemplate, "not hashed"},
	{"readinessProbe", InTemplate, "not hashed"},
	{"hostNetwork", InTemplate, "not in the digest's struct (driver_config_digest.go:79-141)"},
	{"upgradePolicy", NotInPod, "the upgrade controller's policy"},
	{"useOpenKernelModules", NotInPod, "deprecated and read by no code (nvidiadriver_types.go:67-72)"},
	{"default", NotInPod, "which CR owns unselected nodes; nodes that move are judged on their own"},
}

// driverSections are the parts of a ClusterPolicy (or the chart's values)
// the driver DaemonSet is made from; the others (the toolkit, the device
// plugin, …) make other DaemonSets.
var driverSections = []string{"driver", "gds", "gdrcopy", "daemonsets", "hostPaths"}

// classify finds the rule of path (dotted, from the spec) in rules.
func classify(rules []fieldRule, path string) fieldRule {
	best := fieldRule{class: NotInPod, source: "not read by the driver DaemonSet's transform (object_controls.go:1010-1085)"}
	bestLen := -1
	for _, r := range rules {
		if (r.path == "" || path == r.path || strings.HasPrefix(path, r.path+".")) && len(r.path) > bestLen {
			best, bestLen = r, len(r.path)
		}
	}
	return best
}

// Compare says what changing base into head does to each scope of head.
// A driver of base is matched to head's by owner, or the only one to the
// only one (a values file renamed).
func Compare(base, head *operator.Profile) []ScopeChange {
	var out []ScopeChange
	for _, h := range head.Drivers {
		b, ok := matching(base, h, len(head.Drivers))
		sc := ScopeChange{Owner: h.Owner()}
		switch {
		case !ok:
			sc.Kind, sc.Why = FullRollout, "new: no driver of the base configuration is "+h.Owner()
		default:
			sc.Fields = append(fieldChanges(b, h), hostRootChange(base, head)...)
			sc.Kind = kindOf(sc.Fields)
			sc.Kind, sc.Why = versionRule(base, head, sc.Kind)
		}
		out = append(out, sc)
	}
	return out
}

// hostRootChange: an NVIDIADriver's DaemonSet takes the host root from
// the ClusterPolicy's spec.hostPaths.rootFS, and hashes it
// (nvidiadriver_controller.go:133-145; internal/state/driver.go:829).
func hostRootChange(base, head *operator.Profile) []FieldChange {
	if head.Mode != operator.ModeNVIDIADriver {
		return nil
	}
	b, h := base.HostRoot(), head.HostRoot()
	if reflect.DeepEqual(normal(b), normal(h)) {
		return nil
	}
	return []FieldChange{{Path: "ClusterPolicy spec.hostPaths.rootFS", Base: text(b), Head: text(h), Class: InDigest,
		Source: "the host root of every NVIDIADriver's pods (nvidiadriver_controller.go:133-145; internal/state/driver.go:829)"}}
}

func matching(base *operator.Profile, h operator.Driver, n int) (operator.Driver, bool) {
	if base == nil {
		return operator.Driver{}, false
	}
	for _, b := range base.Drivers {
		if b.Owner() == h.Owner() {
			return b, true
		}
	}
	if n == 1 && len(base.Drivers) == 1 && base.Drivers[0].Object.Kind == h.Object.Kind {
		return base.Drivers[0], true
	}
	return operator.Driver{}, false
}

// versionRule: restart-only needs the operator's v26.7 on both sides. A
// release before it hashes nothing, and its pods carry no digest, so the
// predicate says no (restart_only.go:40-44): the first upgrade to v26.7 is
// a full rollout whatever the fields. Between two releases before v26.7
// the operator re-renders the driver DaemonSet from assets the inputs do
// not show, and any change of its template deletes GPU pods. Between two
// releases from v26.7 the digest decides: the fields (compared on what the
// chart renders at each release) say whether it changes, and a template
// change of the operator's own is at most restart-only.
func versionRule(base, head *operator.Profile, kind string) (string, string) {
	bv, hv := base.Version, head.Version
	switch {
	case bv == hv:
		return sameRelease(head, kind)
	case hv.AtLeast(26, 7) && !bv.AtLeast(26, 7):
		return FullRollout, fmt.Sprintf("the operator goes from %s to %s: the running pods carry no configuration digest (the operator hashes the driver pod's configuration from v26.7.0), so none can restart in place: a full rollout on every node", bv, hv)
	case !hv.AtLeast(26, 7):
		return FullRollout, fmt.Sprintf("the operator goes from %s to %s: its own upgrade renders the driver DaemonSet anew from its assets, which the inputs do not show, and before v26.7.0 any change of the driver pod's template deletes its GPU pods", bv, hv)
	case kind == NoOp:
		return RestartOnly, fmt.Sprintf("the operator goes from %s to %s with the same driver configuration: its digest is unchanged, so a change of the operator's own to the driver pod's template restarts the pods in place at most", bv, hv)
	}
	return kind, ""
}

// sameRelease: one release on both sides, the fields decide, but for
// restart-only, which needs v26.7.0 and a release the inputs name.
func sameRelease(head *operator.Profile, kind string) (string, string) {
	switch {
	case kind == RestartOnly && !head.Version.AtLeast(26, 7):
		return FullRollout, fmt.Sprintf("operator %s has no restart-only upgrades (from v26.7.0): any change of the driver pod's template deletes its GPU pods", head.Version)
	case kind == RestartOnly && !head.VersionKnown():
		return FullRollout, "the operator's version is not in the inputs (no gpu-operator Deployment image, operator.version or chart version): restart-only upgrades need v26.7.0, so a full rollout is what can be promised; give --operator-version"
	}
	return kind, ""
}

func kindOf(fields []FieldChange) string {
	kind := NoOp
	for _, f := range fields {
		switch f.Class {
		case InDigest, Unknown:
			return FullRollout
		case InTemplate:
			kind = RestartOnly
		}
	}
	return kind
}

// fieldChanges lists the fields of the spec that differ, deepest first
// found, each classed.
func fieldChanges(b, h operator.Driver) []FieldChange {
	rules, sections := clusterPolicyFields, driverSections
	prefix := "spec."
	if h.Object.Kind == "NVIDIADriver" {
		rules, sections = nvidiaDriverFields, nil
	}
	if h.Chart {
		prefix = ""
	}
	var out []FieldChange
	bs, hs := specs(b, h)
	diff(bs, hs, "", func(path string, bv, hv any) {
		var r fieldRule
		if sections == nil || slices.Contains(sections, strings.SplitN(path, ".", 2)[0]) {
			r = classify(rules, path)
		} else {
			r = classify(nil, path) // a section the driver DaemonSet is not made from
		}
		out = append(out, FieldChange{Path: prefix + path, Base: text(bv), Head: text(hv), Class: r.class, Source: r.source})
	})
	return out
}

// specs are what two drivers are compared on: what the chart renders when
// both sides are the chart's values of a known release, else the specs as
// read (one side's defaults against the other's silence would read as
// changes nobody made).
func specs(b, h operator.Driver) (map[string]any, map[string]any) {
	if b.Rendered != nil && h.Rendered != nil {
		return withoutOff(b.Rendered, h.Rendered)
	}
	return b.Spec, h.Spec
}

// offSections are the chart's sections of a container the driver pod runs
// only when enabled (GDS's nvidia-fs, GDRCopy's gdrdrv,
// object_controls.go:3025-3209).
var offSections = []string{"gds", "gdrcopy"}

// withoutOff drops, from copies of both sides, the sections of a container
// neither side runs: a release that adds gdrcopy's defaults, or moves
// gds.version, changes no pod while they stay off.
func withoutOff(b, h map[string]any) (map[string]any, map[string]any) {
	b, h = maps.Clone(b), maps.Clone(h)
	for _, sec := range offSections {
		if !enabled(b[sec]) && !enabled(h[sec]) {
			delete(b, sec)
			delete(h, sec)
		}
	}
	return b, h
}

func enabled(section any) bool {
	m, _ := section.(map[string]any)
	on, _ := m["enabled"].(bool)
	return on
}

// diff calls each for every path where a and b differ: maps are walked
// key by key (a missing one as empty), anything else is compared whole.
func diff(a, b any, path string, each func(path string, a, b any)) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	// A section one side leaves out is walked as empty, so that the
	// field that appears is the one named.
	if aok && b == nil {
		bm, bok = map[string]any{}, true
	}
	if bok && a == nil {
		am, aok = map[string]any{}, true
	}
	if !aok || !bok {
		if !reflect.DeepEqual(normal(a), normal(b)) {
			each(path, a, b)
		}
		return
	}
	keys := slices.Collect(maps.Keys(am))
	for k := range bm {
		if _, ok := am[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		p := k
		if path != "" {
			p = path + "." + k
		}
		diff(am[k], bm[k], p, each)
	}
}

// normal is v as JSON would give it back, so that 1 and 1.0 are equal.
func normal(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(data, &out) != nil {
		return v
	}
	return out
}

func text(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

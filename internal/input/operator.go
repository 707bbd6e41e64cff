package input

import (
	"slices"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/input/docval"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/operator"
)

// operatorEntry is input.operator: the GPU Operator's configuration the
// run read, where each value came from, and the OS tags of the GPU nodes
// it deploys drivers on (one ClusterPolicy uses one of them for all).
func operatorEntry(p *operator.Profile, facts *nodefacts.Set, cat *catalog.Catalog) map[string]any {
	if p == nil {
		return map[string]any{"profile": false}
	}
	drivers := make([]any, 0, len(p.Drivers))
	for _, d := range p.Drivers {
		gds, hasGDS := auxOf(d, operator.AuxGDS)
		_, hasGDRCopy := auxOf(d, operator.AuxGDRCopy)
		drivers = append(drivers, map[string]any{
			"object":             docval.Ref(d.Object.Kind, "", d.Object.Name),
			"owner":              d.Owner(),
			"enabled":            d.Enabled,
			"precompiled":        d.Precompiled,
			"repository":         d.Repository,
			"image":              d.Image,
			"version":            d.Version,
			"version_not_branch": d.VersionNotBranch(),
			// A registry of one's own may tag precompiled images by full
			// version (gpu-driver-container's RHCOS build procedure);
			// NVIDIA's public one never does.
			"public_repository":       d.Repository+"/"+d.Image == operator.DefaultRepository,
			"full_version_listed":     d.Version != "" && cat.HasVersion(d.Version),
			"default":                 d.Default,
			"node_selector":           stringMap(d.NodeSelector),
			"kernel_module_type":      d.KernelModuleType,
			"use_open_kernel_modules": d.UseOpenKernelModules,
			"rdma":                    d.RDMA,
			"gds_version":             gds.Version,
			"refused":                 d.Refusal(),
			"gds":                     hasGDS,
			"gdrcopy":                 hasGDRCopy,
		})
	}
	osTags := managedOSTags(facts)
	return map[string]any{
		"profile":               true,
		"mode":                  p.Mode,
		"operator_version":      p.Version.String(),
		"operator_version_from": p.VersionFrom,
		"from":                  stringMap(p.From),
		"drivers":               drivers,
		"os_tags":               docval.Strings(osTags),
		"listed_os_tags":        docval.Strings(listedOSTags(osTags, cat)),
		"cluster_policy":        declared(p.ClusterPolicy),
		"gpu_clusters":          declaredList(p.GPUClusters),
	}
}

// declared is one of the operator's objects and where the inputs declare
// it, or nil.
func declared(d *operator.Declared) any {
	if d == nil {
		return nil
	}
	return map[string]any{"name": d.Name.String(), "object": docval.Ref(d.Where.Kind, d.Where.Namespace, d.Where.Name)}
}

func declaredList(ds []operator.Declared) []any {
	out := make([]any, len(ds))
	for i := range ds {
		out[i] = declared(&ds[i])
	}
	return out
}

// auxOf is the driver pod's image named, when it runs it: GDS and
// GDRCopy only when enabled.
func auxOf(d operator.Driver, name string) (operator.Aux, bool) {
	for _, a := range d.Aux {
		if a.Name == name {
			return a, true
		}
	}
	return operator.Aux{}, false
}

// listedOSTags are the OS tags of tags for which some source holds an
// image: DRV006 warns only where none does.
func listedOSTags(tags []string, cat *catalog.Catalog) []string {
	var out []string
	for _, t := range tags {
		if cat.HasOSTag(t) {
			out = append(out, t)
		}
	}
	return out
}

// managedOSTags are the OS tags of the GPU nodes the operator deploys a
// driver on, sorted.
func managedOSTags(facts *nodefacts.Set) []string {
	var out []string
	for _, f := range facts.List() {
		if t := f.Image.OSTag; f.GPU && f.Image.Managed && t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

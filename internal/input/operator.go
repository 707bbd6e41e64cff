package input

import (
	"slices"

	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/operator"
)

// operatorEntry is input.operator: the GPU Operator's configuration the
// run read, where each value came from, and the OS tags of the GPU nodes
// it deploys drivers on (one ClusterPolicy uses one of them for all).
func operatorEntry(p *operator.Profile, facts *nodefacts.Set) map[string]any {
	if p == nil {
		return map[string]any{"profile": false}
	}
	drivers := make([]any, 0, len(p.Drivers))
	for _, d := range p.Drivers {
		drivers = append(drivers, map[string]any{
			"object":             ref(d.Object.Kind, "", d.Object.Name),
			"owner":              d.Owner(),
			"enabled":            d.Enabled,
			"precompiled":        d.Precompiled,
			"repository":         d.Repository,
			"image":              d.Image,
			"version":            d.Version,
			"version_not_branch": d.VersionNotBranch(),
			"default":            d.Default,
			"node_selector":      stringMap(d.NodeSelector),
		})
	}
	return map[string]any{
		"profile":               true,
		"mode":                  p.Mode,
		"operator_version":      p.Version.String(),
		"operator_version_from": p.VersionFrom,
		"from":                  stringMap(p.From),
		"drivers":               drivers,
		"os_tags":               anyStrings(managedOSTags(facts)),
	}
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

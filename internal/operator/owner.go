package operator

import (
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/drvcheck/drvcheck/internal/nodefacts"
)

// owner finds the driver that serves a node with labels l, as AssignOwners
// does: under a ClusterPolicy its one driver; else the NVIDIADriver whose
// nodeSelector matches (none means nvidia.com/gpu.present=true), else the
// one default. No driver, or more than one matching, is why not.
func (p *Profile) owner(l map[string]string) (*Driver, string) {
	if p.Mode == ModeClusterPolicy {
		return &p.Drivers[0], ""
	}
	var match, def []*Driver
	for i := range p.Drivers {
		d := &p.Drivers[i]
		switch {
		case d.Default:
			def = append(def, d)
		case selects(d.NodeSelector, l):
			match = append(match, d)
		}
	}
	switch {
	case len(match) == 1:
		return match[0], ""
	case len(match) > 1:
		return nil, "NVIDIADrivers " + owners(match) + " all select it; the operator assigns no owner"
	case len(def) == 1:
		return def[0], ""
	}
	return nil, "no NVIDIADriver selects it and none is default: true"
}

func selects(sel map[string]string, l map[string]string) bool {
	if len(sel) == 0 {
		sel = map[string]string{nodefacts.GPUPresent: "true"}
	}
	return labels.SelectorFromSet(sel).Matches(labels.Set(l))
}

func owners(ds []*Driver) string {
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = d.Object.Name
	}
	return strings.Join(names, ", ")
}

package runner

import (
	"slices"

	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/operator"
)

// operatorFlags are the driver flags the operator profile starts from.
func (cfg Config) operatorFlags() operator.Flags {
	o := cfg.Operator
	return operator.Flags{DriverVersion: o.DriverVersion, Precompiled: o.Precompiled,
		DriverRepository: o.DriverRepository, OperatorVersion: o.OperatorVersion, Values: o.OperatorValues, FS: cfg.FS}
}

// operatorObjects are the operator's objects among those read, and the
// Deployments' images (the operator's own names its release).
func operatorObjects(inv *inventory.Inventory) operator.Objects {
	objs := operator.Objects{ClusterPolicies: inv.ClusterPolicies, NVIDIADrivers: inv.NVIDIADrivers}
	for _, d := range inv.Deployments {
		for _, c := range d.Spec.Template.Spec.Containers {
			objs.Images = append(objs.Images, c.Image)
		}
	}
	return objs
}

// NodeFacts reads the operator profile of inv (with cfg's driver flags)
// and returns the facts of the node named name with the profile's image:
// what tag needs of a run, without its rules or catalog.
func NodeFacts(cfg Config, inv *inventory.Inventory, name string) (nodefacts.Facts, *operator.Profile, error) {
	profile, err := operator.Build(cfg.operatorFlags(), operatorObjects(inv))
	if err != nil {
		return nodefacts.Facts{}, nil, err
	}
	facts := nodefacts.All(inv.Nodes)
	if profile != nil {
		profile.Apply(facts, inv.Nodes)
	}
	f, _ := facts.Get(name)
	return f, profile, nil
}

// WithProfile is cfg with the profile's repositories among its registries.
func (cfg Config) WithProfile(p *operator.Profile) Config { return cfg.withProfile(p) }

// withProfile adds the profile's repositories to the registries listed:
// the operator pulls from them, so a tag is looked for there.
func (cfg Config) withProfile(p *operator.Profile) Config {
	if p == nil {
		return cfg
	}
	regs := slices.Clone(cfg.Registry.Registry)
	for _, r := range p.Repositories() {
		if !slices.Contains(regs, r) {
			regs = append(regs, r)
		}
	}
	cfg.Registry.Registry = regs
	return cfg
}

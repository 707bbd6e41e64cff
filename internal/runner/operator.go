package runner

import (
	"slices"

	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/internal/operator"
)

// operatorFlags are the driver flags the operator profile starts from.
func (cfg Config) operatorFlags() operator.Flags {
	o := cfg.Operator
	return operator.Flags{DriverVersion: o.DriverVersion, Precompiled: o.Precompiled,
		DriverRepository: o.DriverRepository, DriverImage: o.DriverImage, OperatorVersion: o.OperatorVersion, Values: o.OperatorValues, FS: cfg.FS}
}

// operatorObjects are the operator's objects among those read, and the
// Deployments' images (the operator's own names its release).
func operatorObjects(inv *inventory.Inventory) operator.Objects {
	objs := operator.Objects{ClusterPolicies: inv.ClusterPolicies, NVIDIADrivers: inv.NVIDIADrivers}
	for _, g := range inv.GPUClusters {
		objs.GPUClusters = append(objs.GPUClusters, operator.ItSelf(object.Ref{Kind: "GPUCluster", Name: g.Name}))
	}
	for _, i := range inv.OperatorInstalls {
		objs.Installs = append(objs.Installs, operator.Install{From: i.From.Ref(), Version: i.Version, Values: i.Values})
	}
	for _, d := range inv.Deployments {
		for _, c := range d.Spec.Template.Spec.Containers {
			objs.Images = append(objs.Images, c.Image)
			for _, e := range c.Env {
				if e.Name == operator.DriverImageEnv && e.Value != "" {
					objs.DriverImages = append(objs.DriverImages, operator.EnvImage{Value: e.Value, From: "Deployment/" + d.Namespace + "/" + d.Name})
				}
			}
		}
	}
	return objs
}

// NodeFacts reads the operator profile of inv (with cfg's driver flags)
// and returns the facts of the node named name with the profile's image:
// what tag needs of a run, without its rules or catalog.
func NodeFacts(cfg Config, inv *inventory.Inventory, name string) (nodefacts.Facts, *operator.Profile, error) {
	profile, facts, err := Profile(cfg, inv)
	if err != nil {
		return nodefacts.Facts{}, nil, err
	}
	f, _ := facts.Get(name)
	return f, profile, nil
}

// WithProfile is cfg with the repositories the profile pulls the images
// of facts' managed GPU nodes from among its registries (withProfile).
func (cfg Config) WithProfile(p *operator.Profile, facts ...nodefacts.Facts) Config {
	return cfg.withProfile(p, facts)
}

// withProfile makes the repositories the operator pulls from the sources
// of existing tags, when the user gave none: a --matrix or --registry
// given is what the user says exists (an air-gapped mirror, a support
// matrix), and asking nvcr.io besides would fail offline. Only the
// repositories of managed GPU nodes' images are listed: a run whose GPU
// nodes all have a pre-installed driver asks no registry.
func (cfg Config) withProfile(p *operator.Profile, facts []nodefacts.Facts) Config {
	if p == nil || cfg.Registry.Configured() {
		return cfg
	}
	var regs []string
	add := func(r string) {
		if r != "" && !slices.Contains(regs, r) {
			regs = append(regs, r)
		}
	}
	for _, f := range facts {
		if !f.GPU || !f.Image.Managed || f.Tag == "" {
			continue
		}
		add(f.Image.Repository)
		for _, a := range f.Image.Aux { // the driver pod's other images
			if a.Tag != "" {
				add(a.Repository)
			}
		}
	}
	slices.Sort(regs)
	cfg.Registry.Registry = regs
	return cfg
}

// Profile is the operator profile of inv (with cfg's driver flags) and
// its nodes' facts under it: what a configuration is, without rules or
// catalog (drvcheck diff's base).
func Profile(cfg Config, inv *inventory.Inventory) (*operator.Profile, *nodefacts.Set, error) {
	profile, err := operator.Build(cfg.operatorFlags(), operatorObjects(inv))
	if err != nil {
		return nil, nil, err
	}
	return profile, nodefacts.With(inv.Nodes, imager(profile)), nil
}

// imager gives the nodes their images: the operator's profile when the
// run has its configuration, else the lab's labels.
func imager(p *operator.Profile) nodefacts.Imager {
	if p == nil {
		return nodefacts.Labels{}
	}
	return p
}

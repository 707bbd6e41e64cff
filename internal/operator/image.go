package operator

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/nodefacts"
)

// Labels the operator reads to decide whether a node gets a driver
// (state_manager.go; k8s-driver-manager).
const (
	DeployDriver   = nodefacts.DeployDriver
	WorkloadConfig = nodefacts.WorkloadConfig
)

// Apply gives every GPU node of facts the image the operator would pull
// for it: the profile is the run's nodefacts.Imager when the operator's
// configuration is known.
func (p *Profile) Apply(facts *nodefacts.Set, nodes []*corev1.Node) {
	aux := auxMemo{}
	facts.Each(nodes, func(n *corev1.Node, f *nodefacts.Facts) {
		if f.GPU {
			p.resolve(n.Labels, f, aux)
		}
	})
	if p.Mode == ModeClusterPolicy {
		p.candidates(facts, nodes)
	}
}

// candidates gives each managed node the tags of the other OS tags of the
// fleet: the operator uses one of them for every node (getGPUNodeOSInfo
// reads one arbitrary GPU node), so the worst case is checked.
func (p *Profile) candidates(facts *nodefacts.Set, nodes []*corev1.Node) {
	var tags []string
	for _, f := range facts.List() {
		if t := f.Image.OSTag; f.GPU && f.Image.Managed && t != "" && !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	if len(tags) < 2 {
		return
	}
	slices.Sort(tags)
	facts.Each(nodes, func(_ *corev1.Node, f *nodefacts.Facts) {
		if !f.GPU || !f.Image.Managed || f.Tag == "" {
			return
		}
		for _, t := range tags {
			if t == f.Image.OSTag {
				continue
			}
			if ref, err := p.Drivers[0].Ref(f.Kernel, t); err == nil {
				f.Image.Candidates = append(f.Image.Candidates, ref.Tag)
			}
		}
	})
}

// resolve sets f.Image, f.Tag and the problems that stand in their way.
func (p *Profile) resolve(l map[string]string, f *nodefacts.Facts, aux auxMemo) {
	d, why := p.owner(l)
	img := nodefacts.Image{OSTag: OSTag(f.OSID, f.OSVersion, p.Version)}
	f.Problems = p.relevant(f.Problems, d)
	f.Tag = ""
	if d == nil {
		img.OwnerError, img.Reason = why, why
		f.Image = img
		return
	}
	img.Owner, img.Version, img.Precompiled = d.Owner(), d.Version, d.Precompiled
	img.Managed, img.Reason = managed(d, l)
	img.Unresolved = d.Unresolved
	f.Image = img
	if len(f.Problems) > 0 || f.OSID == "" || f.OSVersion == "" {
		return
	}
	ref, err := d.Ref(f.Kernel, img.OSTag)
	if err != nil {
		return // Build checked every driver
	}
	f.Image.Ref, f.Image.Repository = ref.String(), ref.Repository
	f.Image.Digest = ref.Digest != ""
	if !f.Image.Digest { // pulled by its digest: no tag to look for
		f.Tag = ref.Tag
		f.CheckTag()
	}
	f.Image.Aux = aux.of(d, img.OSTag)
}

// auxMemo holds the driver pod's other images by driver and OS tag: the
// same for every node of a pool, composed (and parsed) once per pool and
// shared, read-only, by the nodes' facts.
type auxMemo map[auxKey][]nodefacts.AuxImage

type auxKey struct {
	d     *Driver
	osTag string
}

func (m auxMemo) of(d *Driver, osTag string) []nodefacts.AuxImage {
	k := auxKey{d, osTag}
	if imgs, ok := m[k]; ok {
		return imgs
	}
	m[k] = auxImages(d, osTag)
	return m[k]
}

// auxImages are the driver pod's other images on a node of OS tag osTag.
func auxImages(d *Driver, osTag string) []nodefacts.AuxImage {
	out := make([]nodefacts.AuxImage, 0, len(d.Aux))
	for _, a := range d.Aux {
		ai := nodefacts.AuxImage{Name: a.Name, Title: a.Title(), Field: a.Field}
		ref, why := a.Ref(osTag)
		if why != "" {
			ai.Unresolved = fmt.Sprintf("%s of %s %s", a.Field, d.Owner(), why)
			ai.Refused = !strings.HasPrefix(why, "sets none")
			out = append(out, ai)
			continue
		}
		ai.Ref, ai.Repository = ref.String(), ref.Repository
		if ai.Digest = ref.Digest != ""; !ai.Digest {
			ai.Tag = ref.Tag
		}
		out = append(out, ai)
	}
	return out
}

// relevant keeps the label problems that matter to the operator's image:
// the version is the profile's, not the node's driver label, and only a
// precompiled image names the kernel.
func (p *Profile) relevant(ps []nodefacts.Problem, d *Driver) []nodefacts.Problem {
	var out []nodefacts.Problem
	for _, pr := range ps {
		switch {
		case pr.Key == nodefacts.Kernel && (d == nil || !d.Precompiled):
		case pr.Key == nodefacts.Kernel, pr.Key == nodefacts.OSID, pr.Key == nodefacts.OSVersionID:
			out = append(out, pr)
		}
	}
	return out
}

// managed says whether the operator deploys d's driver on a node with
// labels l: not when the driver is off, nor on a node whose deploy label
// says pre-installed or false, nor on a node for VMs.
func managed(d *Driver, l map[string]string) (bool, string) {
	if !d.Enabled {
		return false, "driver.enabled is false in " + d.Owner()
	}
	if why := nodefacts.Unmanaged(l); why != "" {
		return false, why
	}
	return true, ""
}

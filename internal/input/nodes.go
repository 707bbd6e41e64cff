package input

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/gpures"
	"github.com/drvcheck/drvcheck/internal/imageref"
	"github.com/drvcheck/drvcheck/internal/input/docval"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
)

// nodeEntries returns input.nodes: each node's facts, the pointers of the
// labels its tag is made of, and whether its image exists.
func nodeEntries(inv *inventory.Inventory, facts *nodefacts.Set, cat *catalog.Catalog, cfg *gpures.Configs) []any {
	out := make([]any, 0, len(inv.Nodes))
	offers := map[string]map[string]any{} // one map for the nodes that offer the same
	kernels := map[string][2]string{}     // the parts of each kernel, parsed once
	extended := inv.ExtendedOffers()
	for i, n := range inv.Nodes {
		f := facts.List()[i]
		parts, ok := kernels[f.Kernel]
		if !ok {
			parts[0], parts[1], _ = nodefacts.KernelParts(f.Kernel)
			kernels[f.Kernel] = parts
		}
		fields := labelFields(f)
		offer := gpures.OfferOf(n, cfg.MIGConfigs()).WithExtended(extended[n.Name])
		key := offer.Key()
		resources, ok := offers[key]
		if !ok {
			resources = resourceMap(offer.Resources)
			offers[key] = resources
		}
		out = append(out, map[string]any{
			"name":               f.Name,
			"object":             docval.Ref("Node", "", f.Name),
			"gpu":                f.GPU,
			"gpu_by":             f.GPUBy,
			"branch":             f.Branch,
			"driver_version":     f.DriverVersion,
			"kernel":             f.Kernel,
			"kernel_series":      parts[0],
			"kernel_flavour":     parts[1],
			"arch":               f.Arch,
			"os_id":              f.OSID,
			"os_version":         f.OSVersion,
			"os_tag":             f.OSTag,
			"tag":                f.Tag,
			"fields":             stringMap(fields),
			"problems":           problems(n.Labels, f.Problems),
			"image":              image(cat, f, fields),
			"upgrade_state":      f.UpgradeState,
			"unschedulable":      f.Unschedulable,
			"labels":             stringMap(n.Labels),
			"gpu_resources":      resources,
			"gpu_resources_from": offer.From,
		})
	}
	return out
}

// resourceMap is a node's GPU resources by name.
func resourceMap(m map[corev1.ResourceName]int64) map[string]any {
	out := make(map[string]any, len(m))
	for name, n := range m {
		out[string(name)] = n
	}
	return out
}

// labelFields are the pointers of the labels the tag is made of, by part.
func labelFields(f nodefacts.Facts) map[string]string {
	return map[string]string{
		"branch":     labelPointer(f.BranchKey),
		"kernel":     labelPointer(nodefacts.Kernel),
		"os_id":      labelPointer(nodefacts.OSID),
		"os_version": labelPointer(nodefacts.OSVersionID),
	}
}

func labelPointer(key string) string { return docval.Pointer([]any{"metadata", "labels", key}) }

// blamed is the label a missing tag's part is blamed on (catalog.Blame):
// the OS tag's version, rather than its ID, is what changes.
var blamed = map[string]string{catalog.Branch: "branch", catalog.Kernel: "kernel", catalog.OS: "os_version"}

// image is the catalog's verdict on the node's tag. A missing tag is
// blamed on the label of the part no source has with the other two (the
// kernel, after a kernel bump), so that its finding points at that line.
func image(cat *catalog.Catalog, f nodefacts.Facts, fields map[string]string) map[string]any {
	v := cat.CheckRef(f.Image.Repository, f.Tag)
	field := ""
	if v.Checked && !v.Present && f.Image.Owner == "" {
		field = fields[blamed[cat.Blame(f.Branch, f.Kernel, f.OSTag)]]
	}
	img := f.Image
	missing := ""
	if v.Checked && !v.Present {
		missing = f.Tag
	}
	// The worst case first: any candidate the node may get that is missing.
	for _, t := range img.Candidates {
		if c := cat.Check(t); missing == "" && c.Checked && !c.Present {
			missing = t
		}
	}
	out := map[string]any{
		"checked": v.Checked, "present": v.Present && missing == "", "sources": docval.Strings(v.Sources), "field": field,
		"candidates": docval.Strings(img.Candidates), "missing": missing,
		"ref": img.Ref, "repository": img.Repository, "version": img.Version, "precompiled": img.Precompiled,
		"digest": img.Digest, "os_tag": img.OSTag, "managed": img.Managed, "reason": img.Reason,
		"owner": img.Owner, "owner_error": img.OwnerError, "unresolved": img.Unresolved,
		"aux": auxEntries(cat, img.Aux),
	}
	// Set only where known: most nodes have neither, and the document
	// is converted for OPA node by node.
	if img.Platforms != nil {
		out["platforms"] = docval.Strings(img.Platforms)
	}
	if n := newestKernel(cat, f, missing); n != nil {
		out["newest"] = n
	}
	return out
}

// auxEntries are the driver pod's other images and whether the sources
// that list their repositories have them.
func auxEntries(cat *catalog.Catalog, aux []nodefacts.AuxImage) []any {
	out := make([]any, 0, len(aux))
	for _, a := range aux {
		v := cat.CheckImage(a.Repository, a.Tag)
		out = append(out, map[string]any{
			"name": a.Name, "title": a.Title, "field": a.Field, "ref": a.Ref, "repository": a.Repository, "tag": a.Tag,
			"checked": v.Checked, "present": v.Present, "sources": docval.Strings(v.Sources), "unresolved": a.Unresolved,
			"sources_listed": docval.Strings(cat.SourcesOf(a.Repository)), "refused": a.Refused,
		})
	}
	return out
}

// problems adds to each the path of the label in the manifest (or of the
// labels map, when the label is missing) so findings point at a line.
func problems(labels map[string]string, ps []nodefacts.Problem) []any {
	out := make([]any, 0, len(ps))
	for _, p := range ps {
		field := []any{"metadata", "labels"}
		if _, ok := labels[p.Key]; ok {
			field = append(field, p.Key)
		}
		out = append(out, map[string]any{"label": p.Label, "reason": p.Reason, "field": docval.Pointer(field)})
	}
	return out
}

// newestKernel is, for a node whose own tag is missing, the newest kernel
// of its line (branch, OS tag, Ubuntu series and flavour) some source has
// a tag for, and whether the node's kernel is newer (the tag is then not
// published yet) or older (a kernel the node could move to); nil when
// there is none.
func newestKernel(cat *catalog.Catalog, f nodefacts.Facts, missing string) any {
	if missing == "" || missing != f.Tag {
		return nil
	}
	newest := cat.NewestKernel(f.Tag)
	if newest == "" {
		return nil
	}
	branch, _, osTag, _ := imageref.SplitDriverTag(f.Tag)
	have, _ := nodefacts.ParseUbuntuKernel(newest)
	own, _ := nodefacts.ParseUbuntuKernel(f.Kernel)
	return map[string]any{"kernel": newest, "node_newer": own.Compare(have) > 0,
		"branch": branch, "os_tag": osTag, "flavour": own.Flavour}
}

package input

import (
	"maps"
	"sync"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/cuda"
	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
)

// Options shape the document.
type Options struct {
	// Objects adds every object as read (input.objects), for custom rules
	// that need more than the facts. Built-in rules never read it, so it is
	// only built when custom policies are loaded.
	Objects any
	// CUDA turns images into driver floors (--cuda-compat, and the user's
	// additions to the image table); the zero value is minor-version
	// compatibility with the built-in table.
	CUDA cuda.Policy
	// Drain is the pod and budget model (drain.New); it adds input.pdbs
	// and input.drain.
	Drain *drain.Model
}

// Build returns the input document for inv and cat.
func Build(inv *inventory.Inventory, cat *catalog.Catalog, opt Options) map[string]any {
	mode := "files"
	if inv.Live {
		mode = "cluster"
	}
	// The sections do not depend on each other: gather them at once.
	var (
		nodes     []any
		gpu       int
		workloads []any
		drainDoc  map[string]any
		wg        sync.WaitGroup
	)
	wg.Go(func() { nodes, gpu = nodeEntries(inv, cat) })
	wg.Go(func() { workloads = workloadEntries(inv, opt.CUDA) })
	if opt.Drain != nil {
		wg.Go(func() { drainDoc = DrainSections(opt.Drain) })
	}
	wg.Wait()
	doc := map[string]any{
		"version":   Version,
		"mode":      mode,
		"catalog":   catalogEntry(cat),
		"nodes":     nodes,
		"workloads": workloads,
		"summary":   map[string]any{"gpu_nodes": gpu, "objects": inv.Objects},
	}
	maps.Copy(doc, drainDoc)
	addLive(doc, inv)
	if opt.Objects != nil {
		doc["objects"] = opt.Objects
	}
	return doc
}

func catalogEntry(cat *catalog.Catalog) map[string]any {
	return map[string]any{
		"configured":  cat.Configured(),
		"sources":     anyStrings(cat.Sources()),
		"description": cat.Describe(),
	}
}

func nodeEntries(inv *inventory.Inventory, cat *catalog.Catalog) ([]any, int) {
	out := make([]any, 0, len(inv.Nodes))
	gpu := 0
	for _, n := range inv.Nodes {
		f := nodefacts.Of(n)
		if f.GPU {
			gpu++
		}
		e := map[string]any{
			"name":           f.Name,
			"object":         ref("Node", "", f.Name),
			"gpu":            f.GPU,
			"branch":         f.Branch,
			"driver_version": f.DriverVersion,
			"kernel":         f.Kernel,
			"os_id":          f.OSID,
			"os_version":     f.OSVersion,
			"os_tag":         f.OSTag,
			"tag":            f.Tag,
			"problems":       problems(n.Labels, f.Problems),
			"image":          image(cat, f.Tag),
			"upgrade_state":  f.UpgradeState,
			"unschedulable":  f.Unschedulable,
			"labels":         stringMap(n.Labels),
		}
		out = append(out, e)
	}
	return out, gpu
}

func image(cat *catalog.Catalog, tag string) map[string]any {
	if tag == "" || !cat.Configured() {
		return map[string]any{"checked": false, "present": false, "sources": []any{}}
	}
	have := cat.Lookup(tag)
	return map[string]any{"checked": true, "present": len(have) > 0, "sources": anyStrings(have)}
}

// problems adds to each the path of the label in the manifest (or of the
// labels map, when the label is missing) so findings point at a line.
func problems(labels map[string]string, ps []nodefacts.Problem) []any {
	out := make([]any, 0, len(ps))
	for _, p := range ps {
		field := []any{"metadata", "labels"}
		if _, ok := labels[p.Label]; ok {
			field = append(field, p.Label)
		}
		out = append(out, map[string]any{"label": p.Label, "reason": p.Reason, "field": pointer(field)})
	}
	return out
}

func ref(kind, namespace, name string) map[string]any {
	return map[string]any{"kind": kind, "namespace": namespace, "name": name}
}

func anyStrings(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

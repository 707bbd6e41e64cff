package input

import (
	"maps"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/cuda"
	"github.com/drvcheck/drvcheck/internal/gpures"
	"github.com/drvcheck/drvcheck/internal/input/docval"
	"github.com/drvcheck/drvcheck/internal/input/workload"
	"github.com/drvcheck/drvcheck/internal/input/workload/gpufit"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/operator"
	"github.com/drvcheck/drvcheck/internal/placement"
	"github.com/drvcheck/drvcheck/internal/snapshot"
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
	// Drain is the pod and budget model (placement.New); it adds input.pdbs
	// and input.drain. A caller that builds the model while Build runs
	// adds them itself with DrainSections.
	Drain *placement.Model
	// Operator is the GPU Operator's configuration; nil without one. It
	// adds input.operator.
	Operator *operator.Profile
	// GPU is the device plugin's and the MIG manager's configs the
	// ClusterPolicy names, when the inputs hold them (ConfigsOf); nil
	// without.
	GPU *gpures.Configs
	// Gangs, when set, gets the gangs that fit the fleet (gpufit.Room),
	// for plan --all to ask again with each round's nodes out.
	Gangs *[]*gpufit.Room
}

// Build returns the input document for inv, whose nodes' facts are facts
// (nodefacts.All(inv.Nodes), read once per run), and cat.
func Build(inv *inventory.Inventory, facts *nodefacts.Set, cat *catalog.Catalog, opt Options) map[string]any {
	mode := "files"
	if inv.Live {
		mode = "cluster"
	}
	// The sections do not depend on each other: gather them at once.
	var (
		nodes     []any
		workloads []any
		claims    []any
		drainDoc  map[string]any
		wg        sync.WaitGroup
	)
	wg.Go(func() { nodes = nodeEntries(inv, facts, cat, opt.GPU) })
	win := rolloutWindow(facts, opt.Operator)
	wg.Go(func() {
		var gangs []*gpufit.Room
		workloads, claims, gangs = workload.Sections(inv, facts, opt.CUDA, opt.GPU, win)
		if opt.Gangs != nil {
			*opt.Gangs = gangs
		}
	})
	if opt.Drain != nil {
		wg.Go(func() { drainDoc = DrainSections(facts, opt.Drain, opt.Operator) })
	}
	wg.Wait()
	doc := map[string]any{
		"version":   Version,
		"mode":      mode,
		"catalog":   catalogEntry(cat),
		"operator":  operatorEntry(opt.Operator, facts, cat),
		"nodes":     nodes,
		"workloads": workloads,
		"claims":    claims,
		"summary":   map[string]any{"gpu_nodes": facts.GPU(), "objects": inv.Objects, "gpu_only_nodes": gpuOnly(inv.Nodes)},
	}
	maps.Copy(doc, drainDoc)
	addLive(doc, inv)
	if opt.Objects != nil {
		doc["objects"] = opt.Objects
	}
	return doc
}

// gpuOnly says whether the nodes include a snapshot taken with
// --gpu-only: the cluster's other nodes are then absent.
func gpuOnly(nodes []*corev1.Node) bool {
	for _, n := range nodes {
		if snapshot.IsGPUOnly(n) {
			return true
		}
	}
	return false
}

func catalogEntry(cat *catalog.Catalog) map[string]any {
	return map[string]any{
		"configured":  cat.Configured(),
		"sources":     docval.Strings(cat.Sources()),
		"description": cat.Describe(),
	}
}

func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

package input

import (
	"slices"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/input/docval"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/operator"
	"github.com/drvcheck/drvcheck/internal/placement"
)

// DrainSections are what a drain meets: every budget (input.pdbs); per
// GPU node, the pods a drain would need flags for and the budgets that
// refuse its evictions (input.drain); and what the GPU Operator's upgrade
// meets (input.upgrade). Build adds them when Options.Drain is
// set, and a caller that builds the model while Build runs adds them
// itself.
func DrainSections(facts *nodefacts.Set, m *placement.Model, p *operator.Profile) map[string]any {
	return map[string]any{"pdbs": pdbEntries(m), "drain": drainEntries(facts, m), "upgrade": upgradeSection(facts, m, p)}
}

// drainEntries drains each GPU node alone, on the fleet as read. A node
// whose evictions all fit their budgets outright is not simulated.
func drainEntries(facts *nodefacts.Set, m *placement.Model) map[string]any {
	out := map[string]any{}
	for _, f := range facts.List() {
		if !f.GPU {
			continue
		}
		room := placement.Room{Node: f.Name}
		if !m.Fits(f.Name) {
			sim := m.NewSim(drain.Flags{})
			sim.Quiet = true // the input holds no replacement's reason
			room = sim.Room(f.Name)
		}
		out[f.Name] = drainEntry(m, room)
	}
	return out
}

// drainEntry is what kubectl drain's filters make of the node's pods, and
// the budgets that refuse.
func drainEntry(m *placement.Model, r placement.Room) map[string]any {
	stays, force, emptyDir := []any{}, []*drain.Pod{}, []*drain.Pod{}
	pods := m.PodsOn(r.Node)
	for _, p := range pods {
		v := p.Verdict
		switch {
		case v.Stays != "":
			stays = append(stays, map[string]any{"pod": p.Key(), "reason": v.Stays})
		case v.NeedsForce && v.NeedsDeleteEmptyDir:
			force, emptyDir = append(force, p), append(emptyDir, p)
		case v.NeedsForce:
			force = append(force, p)
		case v.NeedsDeleteEmptyDir:
			emptyDir = append(emptyDir, p)
		}
	}
	refusals := []any{}
	for _, f := range r.Refusals {
		refusals = append(refusals, refusalEntry(f))
	}
	overlaps := []any{}
	for _, o := range r.Overlaps {
		names := make([]string, len(o.Budgets))
		for i, b := range o.Budgets {
			names[i] = b.Name()
		}
		overlaps = append(overlaps, map[string]any{"pod": o.Pod.Key(), "budgets": docval.Strings(names)})
	}
	return map[string]any{
		"pods":                  len(pods),
		"evictions":             len(pods) - len(stays),
		"stays":                 stays,
		"needs_force":           podEntries(force, ownerField),
		"needs_delete_emptydir": podEntries(emptyDir, emptyDirField),
		"refusals":              refusals,
		"overlaps":              overlaps,
	}
}

// refusalEntry is a budget that refuses evictions from a node for good.
func refusalEntry(f placement.Refusal) map[string]any {
	return map[string]any{
		"budget": loadRef(f.Budget.Ref),
		"name":   f.Budget.Name(),
		"pods":   docval.Strings(drain.Keys(f.Pods)),
		"code":   f.Last.Code,
		"cause":  f.Last.Cause,
		"change": f.Change.Text,
		"status": f.Budget.Status,
	}
}

// podEntries lists pods a drain needs a flag for; field points, in the
// manifest of the pod's workload, at what makes the flag needed.
func podEntries(ps []*drain.Pod, field func(*drain.Pod) string) []any {
	out := make([]any, len(ps))
	for i, p := range ps {
		out[i] = map[string]any{"pod": p.Key(), "namespace": p.Namespace, "name": p.Name,
			"workload": loadRef(p.Workload), "field": field(p)}
	}
	return out
}

// ownerField points at where a pod without a controller would name one.
func ownerField(*drain.Pod) string { return docval.Pointer([]any{"metadata", "ownerReferences"}) }

// emptyDirField points at the pod's first emptyDir volume in its
// workload's pod spec.
func emptyDirField(p *drain.Pod) string {
	for i, v := range p.Spec.Volumes {
		if v.EmptyDir != nil {
			return docval.Pointer(append(slices.Clone(p.SpecPath), "volumes", i, "emptyDir"))
		}
	}
	return docval.Pointer(append(slices.Clone(p.SpecPath), "volumes"))
}

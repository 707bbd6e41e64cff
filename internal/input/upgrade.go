package input

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/gpures"
	"github.com/drvcheck/drvcheck/internal/input/docval"
	"github.com/drvcheck/drvcheck/internal/input/workload/gpufit"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/operator"
	"github.com/drvcheck/drvcheck/internal/placement"
)

// Node keys the upgrade library reads and writes (k8s-operator-libs
// pkg/upgrade consts.go).
const (
	waitStartAnnotation = "nvidia.com/gpu-driver-upgrade-wait-for-pod-completion-start-time"
	validationStart     = "nvidia.com/gpu-driver-upgrade-validation-start-time"
)

// upgradeSection is input.upgrade: the GPU Operator's rollout as it would
// meet the fleet read. Each scope's window at the outset, and, per
// managed GPU node, what the phases that remove its pods meet. Without a
// profile the manual procedure is the model, and only "operator": false
// is set.
func upgradeSection(facts *nodefacts.Set, m *placement.Model, p *operator.Profile) map[string]any {
	out := map[string]any{"operator": p != nil, "scopes": []any{}, "nodes": map[string]any{}, "refusing": map[string]any{}}
	if p == nil {
		return out
	}
	order, scopeOf := managedScopes(facts, p)
	nodes := map[string]any{}
	for _, f := range sortedGPUFacts(facts) {
		i, ok := scopeOf[f.Name]
		if !ok {
			continue
		}
		sc := order[i]
		if t, ok := m.DriverTaint(f.Name); ok {
			sc.untolerated = append(sc.untolerated, map[string]any{"node": f.Name, "taint": t.ToString()})
		}
		nodes[f.Name] = upgradeNode(m, m.Node(f.Name), sc.name, sc.policy)
	}
	entries := make([]any, len(order))
	for i, sc := range order {
		entries[i] = sc.entry()
	}
	out["scopes"], out["nodes"], out["refusing"] = entries, nodes, refusing(nodes)
	return out
}

// managedScopes groups the managed GPU nodes by the scope whose policy
// rolls them (every managed node under a ClusterPolicy, each
// NVIDIADriver's own since v26.7), in the order of each scope's first
// node by name, counted as GetUpgradesAvailable reads them, and says
// each managed node's scope (an index of the scopes).
func managedScopes(facts *nodefacts.Set, p *operator.Profile) ([]*upgradeScope, map[string]int) {
	policies, _ := operator.Policies(p, operator.PolicyFlags{}) // the profile checked them
	index := map[string]int{}
	scopeOf := map[string]int{}
	var order []*upgradeScope
	for _, f := range sortedGPUFacts(facts) {
		if !f.Image.Managed {
			continue
		}
		pol, name := policies(f.Image.Owner)
		i, ok := index[name]
		if !ok {
			i = len(order)
			index[name] = i
			order = append(order, &upgradeScope{name: name, policy: pol, driver: driverOf(p, f.Image.Owner)})
		}
		order[i].add(f)
		scopeOf[f.Name] = i
	}
	return order, scopeOf
}

// rolloutWindow is the driver rollout as DRV029 and DRV032 judge it at
// worst (gpufit.Window): each scope that rolls, its managed nodes, and
// the nodes it takes out at once, maxUnavailable over its managed nodes
// (GetScaledValueFromIntOrPercent, rounded up) bounded by
// maxParallelUpgrades when set. Nil without a profile or a scope that
// rolls.
func rolloutWindow(facts *nodefacts.Set, p *operator.Profile) *gpufit.Window {
	if p == nil {
		return nil
	}
	order, scopeOf := managedScopes(facts, p)
	out := make([]int, len(order))
	rolls := false
	for i, sc := range order {
		if !sc.policy.AutoUpgrade {
			continue // the operator does not roll it: none of it is out
		}
		limit, _ := sc.policy.Unavailable(sc.managed)
		if sc.policy.MaxParallel > 0 {
			limit = min(limit, sc.policy.MaxParallel)
		}
		out[i] = limit
		rolls = rolls || limit > 0
	}
	if !rolls {
		return nil
	}
	return gpufit.NewWindow(scopeOf, out)
}

// refusing indexes the nodes' refusals by budget (namespace/name), so
// that a rule about a budget finds the nodes it holds without a scan of
// every node.
func refusing(nodes map[string]any) map[string]any {
	out := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(nodes)) {
		for _, r := range nodes[name].(map[string]any)["refusals"].([]any) {
			r := r.(map[string]any)
			b := r["budget"].(map[string]any)
			key := b["namespace"].(string) + "/" + b["name"].(string)
			list, _ := out[key].([]any)
			out[key] = append(list, map[string]any{"node": name, "phase": r["phase"]})
		}
	}
	return out
}

func sortedGPUFacts(facts *nodefacts.Set) []nodefacts.Facts {
	var out []nodefacts.Facts
	for _, f := range facts.List() {
		if f.GPU {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b nodefacts.Facts) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// driverOf is the driver configuration that owns a node, or the first.
func driverOf(p *operator.Profile, owner string) operator.Driver {
	for _, d := range p.Drivers {
		if d.Owner() == owner {
			return d
		}
	}
	return p.Drivers[0]
}

// upgradeScope counts one scope's managed nodes as GetUpgradesAvailable
// reads them.
type upgradeScope struct {
	name        string
	policy      operator.Policy
	driver      operator.Driver
	managed     int
	inProgress  int
	unavailable []any // {node, why}
	// untolerated are the nodes whose driver pod runs under a taint it
	// does not tolerate ({node, taint}): the upgrade library cannot build
	// its state while there is one (drain.Model.DriverTaint).
	untolerated []any
}

func (sc *upgradeScope) add(f nodefacts.Facts) {
	sc.managed++
	switch {
	case !f.Ready:
		sc.unavailable = append(sc.unavailable, map[string]any{"node": f.Name, "why": "NotReady"})
	case f.Unschedulable:
		sc.unavailable = append(sc.unavailable, map[string]any{"node": f.Name, "why": "cordoned"})
	}
	if operator.InProgress(f.UpgradeState) {
		sc.inProgress++
	}
}

func (sc *upgradeScope) entry() map[string]any {
	limit, _ := sc.policy.Unavailable(sc.managed) // the profile checked it
	w := operator.Window{Total: sc.managed, Required: sc.managed - sc.inProgress, InProgress: sc.inProgress,
		Unavailable: len(sc.unavailable), MaxParallel: sc.policy.MaxParallel, MaxUnavailable: limit}
	return map[string]any{
		"name":                    sc.name,
		"object":                  loadRef(sc.driver.Object),
		"policy_field":            policyField(sc.driver),
		"policy":                  policyEntry(sc.policy),
		"managed":                 sc.managed,
		"in_progress":             sc.inProgress,
		"unavailable":             len(sc.unavailable),
		"unavailable_nodes":       sc.unavailable,
		"max_unavailable":         limit,
		"slots":                   w.Available(),
		"max_unavailable_written": sc.policy.MaxUnavailable,
		"untolerated":             append([]any{}, sc.untolerated...),
	}
}

// policyField points at the upgrade policy in the driver's manifest.
func policyField(d operator.Driver) string {
	switch d.Object.Kind {
	case "ClusterPolicy":
		return "/spec/driver/upgradePolicy"
	case "NVIDIADriver":
		return "/spec/upgradePolicy"
	}
	return ""
}

func policyEntry(p operator.Policy) map[string]any {
	phase := func(ph operator.Phase) map[string]any {
		return map[string]any{"enabled": ph.Enabled, "force": ph.Force, "delete_emptydir": ph.DeleteEmptyDir,
			"pod_selector": ph.PodSelector, "timeout_seconds": ph.TimeoutSeconds}
	}
	return map[string]any{
		"from":                  p.From,
		"auto_upgrade":          p.AutoUpgrade,
		"max_parallel_upgrades": p.MaxParallel,
		"max_unavailable":       p.MaxUnavailable,
		"wait_for_completion":   phase(p.WaitForJobs),
		"pod_deletion":          phase(p.PodDeletion),
		"drain":                 phase(p.Drain),
	}
}

// upgradeNode is what the upgrade of one managed node meets: the phases
// that remove its pods (none while autoUpgrade is off: the upgrade is then
// the manual procedure), the pods their filters refuse, and the budgets
// that refuse their evictions.
func upgradeNode(m *placement.Model, n *corev1.Node, scope string, pol operator.Policy) map[string]any {
	out := map[string]any{
		"scope":                 scope,
		"auto_upgrade":          pol.AutoUpgrade,
		"phases":                []any{},
		"skip":                  n.Labels[nodefacts.UpgradeSkip] == "true",
		"initial_unschedulable": hasKey(n.Annotations, nodefacts.InitialUnschedulable),
		"wait_started":          epoch(n.Annotations[waitStartAnnotation]),
		"validation_started":    epoch(n.Annotations[validationStart]),
		"not_deletable":         []any{},
		"drain_needs_force":     []any{},
		"drain_needs_emptydir":  []any{},
		"refusals":              []any{},
	}
	if !pol.AutoUpgrade {
		return out
	}
	phases := drain.UpgradePhases(pol)
	names := make([]any, len(phases))
	pods := m.PodsOn(n.Name)
	for i, ph := range phases {
		names[i] = ph.Name
		screen, _ := ph.Screen(n.Name, pods)
		if ph.Strict {
			out["not_deletable"] = notDeletable(screen, ph.Flags)
		} else {
			out["drain_needs_force"] = podEntries(lacking(screen.NeedsForce, ph.Flags.Force), ownerField)
			out["drain_needs_emptydir"] = podEntries(lacking(screen.NeedsDeleteEmptyDir, ph.Flags.DeleteEmptyDir), emptyDirField)
		}
	}
	out["phases"] = names
	if !m.Fits(n.Name) {
		out["refusals"] = phaseRefusals(m, n.Name, phases)
	}
	return out
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// epoch reads a start-time annotation (seconds since 1970); 0 when unset
// or unreadable.
func epoch(v string) int64 {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

func lacking(ps []*drain.Pod, given bool) []*drain.Pod {
	if given {
		return nil
	}
	return ps
}

// notDeletable are the pods GPU-pod deletion must remove and cannot: each
// fails the phase at once (k8s-operator-libs pod_manager.go).
func notDeletable(r drain.DrainResult, f drain.Flags) []any {
	out := []any{}
	add := func(ps []*drain.Pod, reason string, field func(*drain.Pod) string) {
		for _, e := range podEntries(ps, field) {
			e.(map[string]any)["reason"] = reason
			out = append(out, e)
		}
	}
	for _, p := range r.Kept {
		add([]*drain.Pod{p}, p.Verdict.Stays, gpuField)
	}
	add(lacking(r.NeedsForce, f.Force), "no controller", ownerField)
	add(lacking(r.NeedsDeleteEmptyDir, f.DeleteEmptyDir), "emptyDir", emptyDirField)
	return out
}

// gpuField points at the resources of the pod's first container that
// uses a GPU.
func gpuField(p *drain.Pod) string {
	for i, c := range p.Spec.Containers {
		for _, rl := range []corev1.ResourceList{c.Resources.Limits, c.Resources.Requests} {
			for name := range rl {
				if gpures.IsGPU(name) {
					return docval.Pointer(append(slices.Clone(p.SpecPath), "containers", i, "resources"))
				}
			}
		}
	}
	return docval.Pointer(append(slices.Clone(p.SpecPath), "containers"))
}

// phaseRefusals are the budgets that refuse the phases' evictions for
// good, each under the first phase it refuses.
func phaseRefusals(m *placement.Model, node string, phases []drain.Phase) []any {
	out := []any{}
	seen := map[*drain.Budget]bool{}
	for _, ph := range phases {
		sim := m.NewSim(drain.Flags{})
		sim.Quiet = true // only the refusals are read
		for _, f := range sim.RoomIn(node, ph).Refusals {
			if seen[f.Budget] {
				continue
			}
			seen[f.Budget] = true
			e := refusalEntry(f)
			e["phase"] = ph.Name
			out = append(out, e)
		}
	}
	return out
}

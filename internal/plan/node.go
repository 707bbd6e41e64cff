package plan

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
)

// Options shape a plan.
type Options struct {
	Driver string      // the target driver version, e.g. 550.90.07
	Flags  drain.Flags // the drain flags the upgrade will use
}

// UnknownNodeError is a NODE argument that names no node.
type UnknownNodeError struct{ Node string }

func (e *UnknownNodeError) Error() string { return "node " + e.Node + " not found" }

// ForNode plans the driver upgrade of node to opt.Driver: image present? ->
// budget room -> drain -> relabel/reload -> uncordon -> audit.
func ForNode(m *drain.Model, cat *catalog.Catalog, node string, opt Options) (*Plan, error) {
	if err := CheckVersion(opt.Driver); err != nil {
		return nil, err
	}
	n := m.Node(node)
	if n == nil {
		return nil, &UnknownNodeError{Node: node}
	}
	f := nodefacts.Of(n)
	if !f.GPU {
		return nil, fmt.Errorf("node %s is not a GPU node (it lacks %s=true)", node, nodefacts.GPUPresent)
	}
	p := &Plan{Node: node, From: f.DriverVersion, To: opt.Driver}
	image := imageStep(f, cat, opt.Driver)
	p.Tag = image.tag
	sim := m.NewSim(opt.Flags)
	room := sim.Room(node)
	free := sim.WithoutBudgets()
	free.Flags = drain.Flags{Force: true, DeleteEmptyDir: true}
	drained := free.Drain(node)
	drainStep := drainStep(node, drained, opt.Flags)
	p.NeedsForce, p.NeedsDeleteEmptyDir = drain.Keys(drained.NeedsForce), drain.Keys(drained.NeedsDeleteEmptyDir)
	p.Steps = []Step{
		image.Step,
		budgetStep(m, node, room),
		drainStep,
		reloadStep(n, f, opt.Driver, image.tag),
		uncordonStep(n, free.Uncordon(node)),
		auditStep(m, cat, node, image.tag),
	}
	for i := range p.Steps {
		p.Steps[i].N = i + 1
	}
	p.settle()
	return p, nil
}

type image struct {
	Step
	tag string
}

// imageStep checks that the image the node needs after the upgrade exists:
// <branch of VERSION>-<kernel>-<os tag>.
func imageStep(f nodefacts.Facts, cat *catalog.Catalog, version string) image {
	s := image{Step: Step{Name: StepImage, Title: "image present?"}}
	var missing []string
	for _, p := range f.Problems {
		if strings.HasPrefix(p.Label, nodefacts.Kernel) || strings.HasPrefix(p.Label, nodefacts.OSID) || strings.HasPrefix(p.Label, nodefacts.OSVersionID) {
			missing = append(missing, fmt.Sprintf("label %s is %s", p.Label, p.Reason))
		}
	}
	if len(missing) > 0 {
		s.Summary = "no tag: the node's kernel or OS is unknown"
		s.Blockers = []Blocker{{What: strings.Join(missing, ", "), Fix: "label the node as node-feature-discovery does (see DRV002)"}}
		return s
	}
	branch := nodefacts.Branch(version)
	s.tag = nodefacts.TagFor(branch, f.Kernel, f.OSTag)
	switch {
	case !cat.Configured():
		s.Summary = "needs " + s.tag
		s.Blockers = []Blocker{{What: "no --matrix or --registry given: whether " + s.tag + " exists is unknown", Fix: "pass --matrix FILE or --registry REPO"}}
	case len(cat.Lookup(s.tag)) == 0:
		s.Summary = "needs " + s.tag
		s.Blockers = []Blocker{{
			What: fmt.Sprintf("no precompiled driver image %s in %s", s.tag, cat.Describe()),
			Fix:  fmt.Sprintf("build and push %s, or add the row %s,%s,%s to the support matrix", s.tag, branch, f.Kernel, f.OSTag),
		}}
	default:
		s.Summary = fmt.Sprintf("%s is in %s", s.tag, strings.Join(cat.Lookup(s.tag), ", "))
	}
	return s
}

// budgetStep names every budget that refuses an eviction from node, with
// its smallest change.
func budgetStep(m *drain.Model, node string, room drain.Room) Step {
	s := Step{Name: StepBudget, Title: "budget room"}
	for _, r := range room.Refusals {
		s.Blockers = append(s.Blockers, Blocker{
			What: fmt.Sprintf("%s refuses to evict %s: %s", r.Budget.Name(), strings.Join(drain.Keys(r.Pods), ", "), r.Last.Cause),
			Fix:  r.Change.Text,
		})
	}
	for _, o := range room.Overlaps {
		names := budgetNames(o.Budgets)
		s.Blockers = append(s.Blockers, Blocker{
			What: fmt.Sprintf("%s is selected by %s: the eviction API answers 500 (more than one PodDisruptionBudget)", o.Pod.Key(), strings.Join(names, " and ")),
			Fix:  fmt.Sprintf("narrow the selector of %s so that %s has one budget", strings.Join(names, " or "), o.Pod.Key()),
		})
	}
	seen := map[*drain.Budget]bool{}
	var allow []string
	for _, p := range m.PodsOn(node) {
		for _, b := range p.Budgets {
			if seen[b] {
				continue
			}
			seen[b] = true
			allow = append(allow, fmt.Sprintf("%s allows %d", b.Name(), b.Count.Allowed))
			if b.Status == drain.Stale {
				s.Notes = append(s.Notes, b.Name()+": "+b.StatusNote)
			}
		}
	}
	switch {
	case len(s.Blockers) > 0:
		s.Summary = fmt.Sprintf("%d budget(s) refuse evictions from %s (%s)", len(room.Refusals)+len(room.Overlaps), node, strings.Join(allow, ", "))
	case len(allow) == 0:
		s.Summary = "no budget selects a pod on " + node
	default:
		s.Summary = "every eviction from " + node + " fits its budget (" + strings.Join(allow, ", ") + ")"
	}
	return s
}

// drainStep is kubectl drain with the given flags: the pods it evicts,
// where they land, and the pods it refuses without --force or
// --delete-emptydir-data.
func drainStep(node string, d drain.DrainResult, f drain.Flags) Step {
	s := Step{Name: StepDrain, Title: "drain", needs: []string{StepBudget}}
	cmd := "kubectl drain " + node + " --ignore-daemonsets"
	if f.DeleteEmptyDir {
		cmd += " --delete-emptydir-data"
	}
	if f.Force {
		cmd += " --force"
	}
	if len(d.NeedsForce) > 0 && !f.Force {
		s.Blockers = append(s.Blockers, Blocker{
			What: "cannot delete Pods that declare no controller (use --force to override): " + strings.Join(drain.Keys(d.NeedsForce), ", "),
			Fix:  "drain with --force (ClusterPolicy driver.upgradePolicy.drain.force: true), which deletes them for good, or run them under a controller",
		})
	}
	if len(d.NeedsDeleteEmptyDir) > 0 && !f.DeleteEmptyDir {
		s.Blockers = append(s.Blockers, Blocker{
			What: "cannot delete Pods with local storage (use --delete-emptydir-data to override): " + strings.Join(drain.Keys(d.NeedsDeleteEmptyDir), ", "),
			Fix:  "drain with --delete-emptydir-data (driver.upgradePolicy.drain.deleteEmptyDir: true); their emptyDir data is lost",
		})
	}
	var evicted []string
	for _, e := range d.Evicted {
		evicted = append(evicted, e.Pod.Key())
		switch {
		case e.Gone && e.Pod.Controller == "":
			s.Notes = append(s.Notes, e.Pod.Key()+" has no controller: it is deleted for good")
		case e.Gone:
			s.Notes = append(s.Notes, e.Pod.Key()+" has finished: it is deleted")
		case e.To == "":
			s.Notes = append(s.Notes, fmt.Sprintf("%s's replacement stays Pending: %s", e.Pod.Key(), e.Why))
		default:
			s.Notes = append(s.Notes, fmt.Sprintf("%s's replacement lands on %s", e.Pod.Key(), e.To))
		}
	}
	for _, p := range d.Stays {
		s.Notes = append(s.Notes, fmt.Sprintf("%s stays (%s pod, ignored by the drain)", p.Key(), p.Verdict.Stays))
	}
	s.Summary = fmt.Sprintf("%s evicts %d pod(s)", cmd, len(evicted))
	if len(evicted) > 0 {
		s.Summary += ": " + strings.Join(evicted, ", ")
	}
	return s
}

// reloadStep: the driver pod loads the new driver, and gpu-feature-discovery
// relabels the node with its version.
func reloadStep(n *corev1.Node, f nodefacts.Facts, version, tag string) Step {
	s := Step{Name: StepReload, Title: "relabel/reload", needs: []string{StepImage, StepDrain}}
	keys := []string{"nvidia.com/cuda.driver.major", "nvidia.com/cuda.driver.minor", "nvidia.com/cuda.driver.rev"}
	if _, ok := n.Labels["nvidia.com/cuda.driver-version.major"]; ok {
		keys = []string{"nvidia.com/cuda.driver-version.major", "nvidia.com/cuda.driver-version.minor", "nvidia.com/cuda.driver-version.revision"}
	}
	parts := strings.Split(version, ".")
	var labels []string
	for i, p := range parts {
		labels = append(labels, keys[i]+"="+p)
	}
	s.Summary = fmt.Sprintf("the driver pod loads %s from %s; the node is relabelled %s", version, tag, strings.Join(labels, " "))
	if f.DriverVersion == version {
		s.Notes = append(s.Notes, n.Name+" already runs "+version)
	}
	return s
}

func uncordonStep(n *corev1.Node, back []drain.Eviction) Step {
	s := Step{Name: StepUncordon, Title: "uncordon", needs: []string{StepReload}, Summary: "kubectl uncordon " + n.Name}
	for _, e := range back {
		s.Notes = append(s.Notes, fmt.Sprintf("%s's Pending replacement lands on %s", e.Pod.Key(), e.To))
	}
	if n.Spec.Unschedulable {
		s.Notes = append(s.Notes, n.Name+" was cordoned before the upgrade: uncordon it only if that was not on purpose")
	}
	return s
}

// auditStep: after the upgrade, the audit finds the node's new tag; other
// nodes still missing theirs are noted, not blamed on this plan.
func auditStep(m *drain.Model, cat *catalog.Catalog, node, tag string) Step {
	s := Step{Name: StepAudit, Title: "audit", needs: []string{StepReload}}
	s.Summary = fmt.Sprintf("drvcheck audit then finds %s's tag %s", node, tag)
	if !cat.Configured() {
		return s
	}
	for _, n := range m.Nodes {
		f := nodefacts.Of(n)
		if n.Name != node && f.GPU && f.Tag != "" && len(cat.Lookup(f.Tag)) == 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("the audit still reports %s MISSING %s", n.Name, f.Tag))
		}
	}
	return s
}

func budgetNames(bs []*drain.Budget) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.Name()
	}
	return out
}

func slicesSortByName(ns []*corev1.Node) {
	slices.SortFunc(ns, func(a, b *corev1.Node) int { return strings.Compare(a.Name, b.Name) })
}

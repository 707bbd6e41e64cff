package plan

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/placement"
	"github.com/drvcheck/drvcheck/policy"
)

// Options shape a plan.
type Options struct {
	Driver string      // the target driver version, e.g. 550.90.07
	Flags  drain.Flags // the drain flags the upgrade will use
}

// After is what the rules say of the fleet relabelled as if its GPU nodes
// ran the target driver (runner.Upgrade): the image each will need, and
// whether it exists. The plan reads its image and audit steps from it.
type After struct {
	Facts    *nodefacts.Set
	Catalog  *catalog.Catalog
	Findings []policy.Finding
	// Gangs are the gangs that fit the fleet, asked at each round.
	Gangs []Gang
	// images are the image findings by node, once indexed.
	images map[string][]Blocker
}

// indexed returns a with its image findings indexed by node, for a caller
// that asks about every node.
func (a After) indexed() After {
	a.images = map[string][]Blocker{}
	for _, x := range a.Findings {
		if x.Image != "" {
			a.images[x.Node] = append(a.images[x.Node], Blocker{What: x.Message, Fix: x.Fix})
		}
	}
	return a
}

// imageBlockers are the findings that say node's image is missing or
// unknown.
func (a After) imageBlockers(node string) []Blocker {
	if a.images == nil {
		a = a.indexed() // a single node's plan asks once
	}
	return slices.Clone(a.images[node])
}

// UnknownNodeError is a NODE argument that names no node.
type UnknownNodeError struct{ Node string }

func (e *UnknownNodeError) Error() string { return "node " + e.Node + " not found" }

// ForNode plans the driver upgrade of node to opt.Driver: image present? ->
// budget room -> drain -> relabel/reload -> uncordon -> audit.
func ForNode(m *placement.Model, after After, node string, opt Options) (*Plan, error) {
	if err := nodefacts.CheckVersion(opt.Driver); err != nil {
		return nil, err
	}
	n := m.Node(node)
	if n == nil {
		return nil, &UnknownNodeError{Node: node}
	}
	now := nodefacts.Of(n)
	if !now.GPU {
		return nil, fmt.Errorf("node %s is not a GPU node (it carries neither %s=true nor an NFD PCI label of an NVIDIA device)", node, nodefacts.GPUPresent)
	}
	p := &Plan{Node: node, From: now.DriverVersion, To: opt.Driver}
	image := imageStep(node, after)
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
		reloadStep(n, now, opt.Driver, image.tag),
		uncordonStep(n, free.Uncordon(node)),
		auditStep(after, node, image.tag),
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

// imageStep checks that the image the node needs after the upgrade exists.
// The rules say whether it does (a finding with an image verdict about the
// node, and its fix); without a source, nothing can say.
func imageStep(node string, after After) image {
	f, _ := after.Facts.Get(node)
	s := image{Step: Step{Name: StepImage, Title: "image present?", Blockers: after.imageBlockers(node)}, tag: f.Tag}
	v := after.Catalog.CheckRef(f.Image.Repository, f.Tag)
	switch {
	case f.Tag == "":
		s.Summary = "no tag: the node's kernel or OS is unknown"
		if len(s.Blockers) == 0 {
			s.Blockers = []Blocker{{What: "a label the tag is made of is missing or empty", Fix: "label the node as node-feature-discovery does"}}
		}
	case len(s.Blockers) > 0:
		s.Summary = "needs " + f.Tag
	case !v.Checked:
		s.Summary = "needs " + f.Tag
		s.Blockers = []Blocker{{What: "no --matrix or --registry given: whether " + f.Tag + " exists is unknown", Fix: "pass --matrix FILE or --registry REPO"}}
	default:
		s.Summary = fmt.Sprintf("%s is in %s", f.Tag, strings.Join(v.Sources, ", "))
	}
	return s
}

// budgetStep names every budget that refuses an eviction from node, with
// its smallest change.
func budgetStep(m *placement.Model, node string, room placement.Room) Step {
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
func reloadStep(n *corev1.Node, now nodefacts.Facts, version, tag string) Step {
	s := Step{Name: StepReload, Title: "relabel/reload", needs: []string{StepImage, StepDrain}}
	s.Summary = fmt.Sprintf("the driver pod loads %s from %s; the node is relabelled %s", version, tag, strings.Join(nodefacts.DriverLabels(n, version), " "))
	if now.DriverVersion == version {
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
func auditStep(after After, node, tag string) Step {
	s := Step{Name: StepAudit, Title: "audit", needs: []string{StepReload}}
	s.Summary = fmt.Sprintf("drvcheck audit then finds %s's tag %s", node, tag)
	for _, x := range after.Findings {
		if x.Image == "missing" && x.Node != node {
			s.Notes = append(s.Notes, fmt.Sprintf("the audit still reports %s MISSING %s", x.Node, x.Tag))
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

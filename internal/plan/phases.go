package plan

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
)

// step is where a node is after an attempt to remove its pods.
type step int

const (
	passed  step = iota // its pods are gone: the driver reloads
	blocked             // a budget refuses for now; evictions are retried
	ended               // it ends here (o says how)
)

// removePods runs a started (cordoned) node through the states that
// remove its pods, as the operator's state table does (the reference's
// §2.5): wait-for-jobs, pod deletion, the drain fallback; or the manual
// procedure's one drain. With final false a budget's refusal is not yet
// an outcome: the evictions are retried once the nodes of the same window
// that pass are done.
//
// A node already in the upgrade goes on from its state: past the phases
// that remove pods it only waits for its driver; in drain-required it is
// drained, or, with the drain off, goes straight to pod-restart-required
// (ProcessDrainNodes, upgrade_state.go:731-745); in pod-deletion-required
// the jobs are not waited for again.
func (r *rollout) removePods(n *corev1.Node, o *NodeOutcome, final bool) step {
	if r.Policy.Manual {
		return r.remove(n, o, drain.ManualDrain(r.Policy), "drain-required", final)
	}
	from := r.starts[n.Name]
	if from.entry == resumes {
		switch from.state {
		case statePodRestart, stateValidation, stateUncordon:
			return passed
		case stateDrain:
			if !r.Policy.Drain.Enabled {
				return passed
			}
			return r.remove(n, o, drain.FallbackDrain(r.Policy), stateDrain, final)
		}
	}
	skipJobs := from.entry == resumes && from.state == statePodDeletion
	if !final && !skipJobs && !r.waitForJobs(n, o) {
		return ended
	}
	st := r.remove(n, o, drain.PodDeletion(r.Policy), "pod-deletion-required", final)
	if st != ended || !r.Policy.Drain.Enabled || o.Outcome == Stuck {
		return st
	}
	first := o.Why
	*o = NodeOutcome{Node: o.Node, Scope: o.Scope, Round: o.Round, Evicted: o.Evicted, Pending: o.Pending}
	st = r.remove(n, o, drain.FallbackDrain(r.Policy), "drain-required", true)
	if st == ended {
		o.Why = append(first, o.Why...)
	}
	return st
}

// finish reloads the driver of a node whose pods are gone: a missing
// image leaves it in pod-restart-required; otherwise it is done.
//
// A NotReady node cannot run its new driver pod either: the library waits
// for the pod to be in sync and Ready (ProcessPodRestartNodes,
// upgrade_state.go:764-833), and the node stays there, cordoned, holding
// its slot.
func (r *rollout) finish(n *corev1.Node, o *NodeOutcome) {
	if img := imageStep(n.Name, r.after); len(img.Blockers) > 0 {
		// The driver manager has already unloaded the old driver.
		o.Outcome, o.State, o.Why = Stuck, statePodRestart, img.Blockers
		o.Note = "the new driver image is missing: the node stays cordoned with no driver loaded until it exists"
		if img.tag == "" {
			o.Note = "the new driver image is unknown (the labels its tag is made of are missing): the node stays cordoned with no driver loaded until its driver pod finds an image"
		}
		return
	}
	if !nodefacts.Ready(n) {
		o.Outcome, o.State = Stuck, statePodRestart
		o.Why = []Blocker{{
			What: n.Name + " is NotReady: its new driver pod cannot start, so the node waits, cordoned, holding its slot",
			Fix:  "bring the node's kubelet back, or remove the node from the cluster",
		}}
		return
	}
	o.Outcome, o.State = Upgraded, stateDone
}

// waitForJobs is wait-for-jobs-required: pods of waitForCompletion's
// selector still running on the node hold it there, for good with a
// timeout of 0, else until the timeout, after which pod deletion goes on.
func (r *rollout) waitForJobs(n *corev1.Node, o *NodeOutcome) bool {
	w := r.Policy.WaitForJobs
	if !w.Enabled {
		return true
	}
	sel, _ := labels.Parse(w.PodSelector)
	var running []string
	for _, p := range r.sim.PodsOn(n.Name) {
		if (p.Phase == corev1.PodRunning || p.Phase == corev1.PodPending) && sel.Matches(labels.Set(p.Labels)) {
			running = append(running, p.Key())
		}
	}
	if len(running) == 0 {
		return true
	}
	what := fmt.Sprintf("waits for %s (waitForCompletion.podSelector %s) to finish", strings.Join(running, ", "), w.PodSelector)
	if w.TimeoutSeconds == 0 {
		o.Outcome, o.State = Stuck, "wait-for-jobs-required"
		o.Why = []Blocker{{What: what + ", with no timeout", Fix: "set waitForCompletion.timeoutSeconds, or let the jobs finish"}}
		return false
	}
	o.Note = what + fmt.Sprintf(" for up to %ds, then deletes the GPU pods", w.TimeoutSeconds)
	return true
}

// remove runs one phase on n: the filters' refusal ends the node at once
// (upgrade-failed); a budget's is blocked until final, then a failure
// after the phase's timeout, or stuck in state without one.
func (r *rollout) remove(n *corev1.Node, o *NodeOutcome, ph drain.Phase, state string, final bool) step {
	res := r.sim.Run(n.Name, ph)
	for _, e := range res.Evicted {
		name := podName(e.Pod, n.Name)
		o.Evicted = append(o.Evicted, name)
		if !e.Gone && e.To == "" {
			r.pending = append(r.pending, pendingPod{o: o, i: len(o.Pending), pod: e.Pod.Key(), why: e.Why})
			o.Pending = append(o.Pending, fmt.Sprintf("%s (replacement) would stay Pending: %s", e.Pod.Key(), e.Why))
		}
	}
	defer func() { tagPhase(o.Why, ph.Name) }()
	switch {
	case len(res.Refused) > 0:
		o.Outcome, o.State = Failed, "upgrade-failed"
		o.Why = phaseBlockers(ph, res)
		if r.Policy.Manual {
			o.Why = drainStep(n.Name, res, ph.Flags).Blockers // kubectl's flags
		}
		return ended
	case res.Done():
		return passed
	case !final:
		return blocked
	}
	// The budgets are judged where the node waits: after the evictions
	// that passed (a copy of the simulation before each run would cost a
	// copy per node).
	room := r.sim.RoomIn(n.Name, ph)
	o.Why = budgetStep(r.sim.Model(), n.Name, room).Blockers
	o.Outcome, o.State = Failed, "upgrade-failed"
	switch {
	case len(room.Overlaps) > 0:
		// A 500 is not retried.
	case ph.TimeoutSeconds == 0:
		o.Outcome, o.State = Stuck, state
	default:
		o.Note = fmt.Sprintf("%s gives up after %ds", ph.Name, ph.TimeoutSeconds)
	}
	return ended
}

// podName is how an evicted pod is named: a replacement that landed on
// node after an earlier eviction is not the pod read there.
func podName(p *drain.Pod, node string) string {
	if p.Node != node {
		return p.Key() + " (replacement)"
	}
	return p.Key()
}

// tagPhase marks the blockers no phase claimed yet as phase's.
func tagPhase(bs []Blocker, phase string) {
	for i := range bs {
		if bs[i].Phase == "" {
			bs[i].Phase = phase
		}
	}
}

// phaseBlockers says why the filters refuse, in the phase's words.
func phaseBlockers(ph drain.Phase, res drain.DrainResult) []Blocker {
	var out []Blocker
	if len(res.Kept) > 0 {
		out = append(out, Blocker{
			What: "GPU pods the deletion cannot remove (DaemonSet or static pods): " + strings.Join(drain.Keys(res.Kept), ", "),
			Fix:  "run them outside the GPU nodes' upgrade, or without a GPU request; GPU-pod deletion fails at once while they are there",
		})
	}
	prefix := "driver.upgradePolicy." + ph.Name
	if len(res.NeedsForce) > 0 && !ph.Flags.Force {
		out = append(out, Blocker{
			What: ph.Name + " cannot delete Pods that declare no controller: " + strings.Join(drain.Keys(res.NeedsForce), ", "),
			Fix:  "set " + prefix + ".force: true (they are deleted for good), or run them under a controller",
		})
	}
	if len(res.NeedsDeleteEmptyDir) > 0 && !ph.Flags.DeleteEmptyDir {
		out = append(out, Blocker{
			What: ph.Name + " cannot delete Pods with local storage (emptyDir): " + strings.Join(drain.Keys(res.NeedsDeleteEmptyDir), ", "),
			Fix:  "set " + prefix + ".deleteEmptyDir: true; their emptyDir data is lost",
		})
	}
	return out
}

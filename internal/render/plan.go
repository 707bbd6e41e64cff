package render

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/drvcheck/drvcheck/internal/oneline"
	"github.com/drvcheck/drvcheck/internal/plan"
)

// Plan prints the upgrade of one node (plan NODE): one step after the
// other, each with what blocks it and its fix, in text or json.
func Plan(w io.Writer, format string, p *plan.Plan) error {
	if format == "json" {
		return writeJSON(w, p)
	}
	bw := bufio.NewWriter(w)
	from := p.From
	if from == "" {
		from = "an unknown driver"
	}
	fmt.Fprintf(bw, "Upgrade %s from %s to %s\n", p.Node, from, p.To)
	for _, s := range p.Steps {
		planStep(bw, s)
	}
	if p.CanRun {
		fmt.Fprintln(bw, "Every step can run.")
	} else {
		fmt.Fprintln(bw, "Blocked: apply the fixes of the BLOCKED steps, in order, then plan again.")
	}
	return bw.Flush()
}

func planStep(w io.Writer, s plan.Step) {
	status := s.Status
	if status != plan.OK {
		status = strings.ToUpper(status)
	}
	fmt.Fprintf(w, "%d. %-15s %-8s %s\n", s.N, s.Title, status, oneline.Escape(s.Summary))
	blockers(w, "     ", s.Blockers)
	for _, n := range s.Notes {
		fmt.Fprintf(w, "     note:    %s\n", oneline.Escape(n))
	}
}

func blockers(w io.Writer, indent string, bs []plan.Blocker) {
	for _, b := range bs {
		fmt.Fprintf(w, "%sblocked: %s\n", indent, oneline.Escape(b.What))
		if b.Fix != "" {
			fmt.Fprintf(w, "%sfix:     %s\n", indent, oneline.Escape(b.Fix))
		}
	}
}

// Rolling prints the simulated upgrade of the fleet (plan --all): each
// scope's policy and window, one line per GPU node, and whether the
// rollout halts.
func Rolling(w io.Writer, format string, r *plan.Rolling) error {
	if format == "json" {
		return writeJSON(w, r)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Rolling driver upgrade to %s\n", r.Driver)
	for _, sc := range r.Scopes {
		rollingScope(bw, sc)
	}
	for _, o := range r.Nodes {
		rollingNode(bw, o)
	}
	switch {
	case r.Halts:
		fmt.Fprintln(bw, "The rollout halts.")
	case slices.ContainsFunc(r.Nodes, func(o plan.NodeOutcome) bool { return o.Outcome == plan.Failed || o.Outcome == plan.Stuck }):
		fmt.Fprintln(bw, "The rollout finishes, with the nodes above left failed or stuck.")
	default:
		fmt.Fprintln(bw, "No node stalls.")
	}
	return bw.Flush()
}

func rollingScope(w io.Writer, sc plan.Scope) {
	p := sc.Policy
	switch {
	case p.Manual:
		par := fmt.Sprintf("%d node(s) at a time", p.MaxParallel)
		if p.MaxParallel == 0 {
			par = "all nodes at once"
		}
		fmt.Fprintf(w, "%s: the manual procedure (kubectl drain of every pod), %s\n", oneline.Escape(sc.Name), par)
	case !p.AutoUpgrade:
		fmt.Fprintf(w, "%s: %s\n", oneline.Escape(sc.Name), oneline.Escape(sc.Why))
		return
	default:
		drainText := "drain off"
		if p.Drain.Enabled {
			drainText = fmt.Sprintf("drain fallback on (timeout %ds)", p.Drain.TimeoutSeconds)
		}
		fmt.Fprintf(w, "%s (%s): maxParallelUpgrades %d, maxUnavailable %d of %d managed node(s), GPU-pod deletion (timeout %ds), %s\n",
			oneline.Escape(sc.Name), oneline.Escape(p.From), p.MaxParallel, sc.MaxUnavailable, sc.Managed, p.PodDeletion.TimeoutSeconds, drainText)
	}
	fmt.Fprintf(w, "  %d node(s) may start at once (%d cordoned or NotReady before the upgrade)\n", sc.Slots, sc.Unavailable)
	if sc.Halts {
		fmt.Fprintf(w, "  halts: %s\n", oneline.Escape(sc.Why))
	}
}

func rollingNode(w io.Writer, o plan.NodeOutcome) {
	round := "-"
	if o.Round > 0 {
		round = fmt.Sprint(o.Round)
	}
	detail := o.Note
	switch o.Outcome {
	case plan.Upgraded:
		detail = strings.TrimSpace(fmt.Sprintf("%d pod(s) evicted %s", len(o.Evicted), o.Note))
	case plan.Failed, plan.Stuck:
		detail = "in " + o.State
		if o.Note != "" {
			detail += ": " + o.Note
		}
	}
	outcome := strings.ToUpper(o.Outcome)
	if o.OrderDependent {
		outcome += "?"
		detail += " (depends on the operator's order: one of the nodes that may end so)"
	}
	fmt.Fprintf(w, "%3s  %-20s %-12s %s\n", round, oneline.Escape(o.Node), outcome, oneline.Escape(strings.TrimSpace(detail)))
	for _, p := range o.Pending {
		fmt.Fprintf(w, "       pending: %s\n", oneline.Escape(p))
	}
	blockers(w, "       ", o.Why)
}

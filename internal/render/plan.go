package render

import (
	"bufio"
	"fmt"
	"io"
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

// Rollings prints plan --all of several clusters, each naming its
// cluster: one JSON document ({"rollouts": [...]}), one page, or each
// cluster's text or Markdown under its name.
func Rollings(w io.Writer, format string, rs []*plan.Rolling) error {
	switch format {
	case "json":
		return writeJSON(w, struct {
			Rollouts []*plan.Rolling `json:"rollouts"`
		}{rs})
	case "html":
		return RollingHTML(w, rs...)
	}
	for i, r := range rs {
		head := "cluster %s\n"
		if format == "markdown" {
			head = "### Cluster %s\n\n"
		}
		if i > 0 {
			head = "\n" + head
		}
		if _, err := fmt.Fprintf(w, head, oneline.Escape(r.Cluster)); err != nil {
			return err
		}
		if err := Rolling(w, format, r); err != nil {
			return err
		}
	}
	return nil
}

// Rolling prints the simulated upgrade of the fleet (plan --all): the
// verdict, each scope's policy and window, then one line per GPU node
// with the state it reaches, why, and the fix.
func Rolling(w io.Writer, format string, r *plan.Rolling) error {
	switch format {
	case "json":
		return writeJSON(w, r)
	case "html":
		return RollingHTML(w, r)
	case "markdown":
		return RollingMarkdown(w, r)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Rolling driver upgrade to %s: %s\n", r.Driver, oneline.Escape(r.Verdict))
	for _, sc := range r.Scopes {
		rollingScope(bw, sc)
	}
	for _, d := range r.Displaced {
		fmt.Fprintf(bw, "  while a window's nodes are out, %s loses its place%s: %s\n", oneline.Escape(d.Object), displacedRounds(d), oneline.Escape(d.Why))
	}
	if r.GangsUnjudged != "" {
		fmt.Fprintf(bw, "  note: %s\n", oneline.Escape(r.GangsUnjudged))
	}
	if len(r.Nodes) > 0 {
		fmt.Fprintf(bw, "%5s  %-20s %-12s %s\n", "round", "node", "outcome", "state reached, why, fix")
	}
	for _, o := range r.Nodes {
		rollingNode(bw, o)
	}
	return bw.Flush()
}

// displacedRounds says in how many rounds a displaced gang loses its
// place, when more than one, and when that depends on the order.
func displacedRounds(d plan.Displaced) string {
	var s string
	if d.Rounds > 1 {
		s = fmt.Sprintf(" in %d rounds", d.Rounds)
	}
	if d.OrderDependent {
		s += " (depends on the operator's order)"
	}
	return s
}

func rollingScope(w io.Writer, sc plan.Scope) {
	p := sc.Policy
	name := oneline.Escape(sc.Name)
	switch {
	case p.Manual:
		par := fmt.Sprintf("%d node(s) at a time", p.MaxParallel)
		if p.MaxParallel == 0 {
			par = "all nodes at once"
		}
		fmt.Fprintf(w, "%s: the manual procedure (kubectl drain of every pod), %s\n", name, par)
	case !p.AutoUpgrade:
		fmt.Fprintf(w, "%s (%s): the operator will not roll this scope; exit 1 with --fail-on warning\n", name, oneline.Escape(p.From))
		fmt.Fprintf(w, "  %s\n", oneline.Escape(sc.Why))
		return
	default:
		drainText := "drain fallback off"
		if p.Drain.Enabled {
			drainText = fmt.Sprintf("drain fallback on (timeout %ds)", p.Drain.TimeoutSeconds)
		}
		written := p.MaxUnavailable
		if written == "" {
			written = "unset"
		}
		fmt.Fprintf(w, "%s (%s): maxParallelUpgrades %d, maxUnavailable %s (%d of %d managed node(s) may be unavailable), GPU-pod deletion (timeout %ds), %s\n",
			name, oneline.Escape(p.From), p.MaxParallel, oneline.Escape(written), sc.MaxUnavailable, sc.Managed, p.PodDeletion.TimeoutSeconds, drainText)
	}
	fmt.Fprintf(w, "  at the outset: %d node(s) may start; %d already in the upgrade; %d cordoned or NotReady\n", sc.Slots, sc.InProgress, sc.Unavailable)
	if sc.Halts {
		fmt.Fprintf(w, "  halts: %s\n", oneline.Escape(sc.Why))
	}
}

// outcomeWords are the outcomes as the text shows them.
var outcomeWords = map[string]string{
	plan.Upgraded: "UPGRADED", plan.Failed: "FAILED", plan.Stuck: "STUCK", plan.Skipped: "SKIPPED",
	plan.NotStarted: "NOT STARTED", plan.NotRolled: "NOT ROLLED",
}

func rollingNode(w io.Writer, o plan.NodeOutcome) {
	round := "-"
	if o.Round > 0 {
		round = fmt.Sprint(o.Round)
	}
	var detail []string
	if o.From != "" {
		detail = append(detail, "was "+o.From+" when read")
	}
	switch o.Outcome {
	case plan.Upgraded:
		detail = append(detail, fmt.Sprintf("%d pod(s) evicted", len(o.Evicted)))
	case plan.Stuck:
		detail = append(detail, "waits in "+o.State)
	}
	if o.Note != "" {
		detail = append(detail, o.Note)
	}
	outcome := outcomeWords[o.Outcome]
	if outcome == "" {
		outcome = strings.ToUpper(o.Outcome)
	}
	if o.OrderDependent {
		outcome += "?"
		detail = append(detail, "depends on the operator's order: one of the nodes that may end so")
	}
	fmt.Fprintf(w, "%5s  %-20s %-12s %s\n", round, oneline.Escape(o.Node), outcome, oneline.Escape(strings.Join(detail, "; ")))
	for _, p := range o.Pending {
		fmt.Fprintf(w, "         pending: %s\n", oneline.Escape(p))
	}
	phaseBlockers(w, "         ", o.Why)
}

// phaseBlockers prints a node's blockers under the phase that met them; a
// phase that follows another's failure (the drain fallback after GPU-pod
// deletion) says so.
func phaseBlockers(w io.Writer, indent string, bs []plan.Blocker) {
	prev := ""
	for _, b := range bs {
		why := "why: "
		switch {
		case b.Phase != "" && prev != "" && b.Phase != prev:
			why = fmt.Sprintf("why (then %s, after %s failed): ", b.Phase, prev)
		case b.Phase != "":
			why = "why (" + b.Phase + "): "
		}
		prev = b.Phase
		fmt.Fprintf(w, "%s%s%s\n", indent, why, oneline.Escape(b.What))
		if b.Fix != "" {
			fmt.Fprintf(w, "%sfix: %s\n", indent, oneline.Escape(b.Fix))
		}
	}
}

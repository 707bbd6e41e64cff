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

// Rolling prints the simulated upgrade of the fleet (plan --all): one line
// per GPU node, and the first stall.
func Rolling(w io.Writer, format string, r *plan.Rolling) error {
	if format == "json" {
		return writeJSON(w, r)
	}
	bw := bufio.NewWriter(w)
	par := fmt.Sprintf("%d node(s) at a time", r.MaxParallel)
	if r.MaxParallel == 0 {
		par = "all nodes at once"
	}
	fmt.Fprintf(bw, "Rolling driver upgrade to %s, %s\n", r.Driver, par)
	for _, o := range r.Nodes {
		rollingNode(bw, o)
	}
	if r.FirstStall == "" {
		fmt.Fprintln(bw, "No node stalls.")
	} else {
		fmt.Fprintf(bw, "First stall: %s\n", r.FirstStall)
	}
	return bw.Flush()
}

func rollingNode(w io.Writer, o plan.NodeOutcome) {
	batch := "-"
	if o.Batch > 0 {
		batch = fmt.Sprint(o.Batch)
	}
	detail := o.Note
	switch o.Outcome {
	case plan.Upgraded:
		detail = fmt.Sprintf("drained (%d evicted)", len(o.Evicted))
	case plan.Stalls:
		detail = "in " + o.State
	}
	fmt.Fprintf(w, "%3s  %-20s %-12s %s\n", batch, oneline.Escape(o.Node), strings.ToUpper(o.Outcome), oneline.Escape(detail))
	for _, p := range o.Pending {
		fmt.Fprintf(w, "       pending: %s\n", oneline.Escape(p))
	}
	blockers(w, "       ", o.Why)
}

package render

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/drvcheck/drvcheck/internal/oneline"
	"github.com/drvcheck/drvcheck/internal/operator/change"
	"github.com/drvcheck/drvcheck/internal/plan"
)

// changeWords are the verdicts as the text says them.
var changeWords = map[string]string{
	change.NoOp:        "no-op: no driver pod changes",
	change.RestartOnly: "restart-only: nodes are cordoned and their driver pods restarted; no GPU pod is deleted, no node drained",
	change.FullRollout: "full rollout: GPU pods are deleted (drain as fallback) and the driver reloaded on every node it reaches",
	change.Removed:     "driver pods removed: nodes lose their driver at once, outside the upgrade controller",
}

// Changes prints c: the verdict first, then why, then the rollout.
func Changes(w io.Writer, format string, c *plan.Change) error {
	switch format {
	case "json":
		return writeJSON(w, c)
	case "markdown":
		var text bytes.Buffer
		if err := Changes(&text, "text", c); err != nil {
			return err
		}
		return foldedSummary(w, text.String(), c.Rolling)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Operator change %s → %s: %s%s\n", oneline.Escape(c.Base), oneline.Escape(c.Head), changeWords[c.Verdict], notRolled(c.Rolling))
	for _, sc := range c.Scopes {
		fmt.Fprintf(bw, "  %s: %s\n", oneline.Escape(sc.Owner), sc.Kind)
		if sc.Why != "" {
			fmt.Fprintf(bw, "    %s\n", oneline.Escape(sc.Why))
		}
		for i, f := range sc.Fields {
			if i == maxFields { // JSON keeps them all
				fmt.Fprintf(bw, "    … and %d more field(s) (-o json lists them)\n", len(sc.Fields)-maxFields)
				break
			}
			fmt.Fprintf(bw, "    %-8s %s: %s → %s (%s)\n", f.Class, oneline.Escape(f.Path), orUnset(f.Base), orUnset(f.Head), f.Source)
		}
	}
	kinds := map[string]string{}
	for _, sc := range c.Scopes {
		kinds[sc.Owner] = sc.Kind
	}
	counts := map[string]int{}
	for _, n := range c.Nodes {
		counts[n.Kind]++
		if n.Kind != kinds[n.Scope] { // the node's own reason
			fmt.Fprintf(bw, "  node %s: %s\n", oneline.Escape(n.Node), oneline.Escape(n.Why))
		}
	}
	fmt.Fprintf(bw, "Nodes: %d full rollout, %d restart-only, %d no-op, %d removed\n", counts[change.FullRollout], counts[change.RestartOnly], counts[change.NoOp], counts[change.Removed])
	if c.Rolling != nil {
		fmt.Fprintln(bw)
		if err := bw.Flush(); err != nil {
			return err
		}
		return Rolling(w, "text", c.Rolling)
	}
	return bw.Flush()
}

// maxFields are the fields of a scope the text lists: a change of
// thousands of keys must not bury the verdict (nor, in the Action, push
// the step summary past GitHub's limit).
const maxFields = 20

// notRolled qualifies the verdict when the operator rolls none of the
// nodes the change reaches (autoUpgrade off): it then happens only as
// driver pods are deleted by hand.
func notRolled(r *plan.Rolling) string {
	if r == nil {
		return ""
	}
	seen := false
	for _, n := range r.Nodes {
		switch n.Outcome {
		case plan.NotRolled:
			seen = true
		case plan.Skipped:
		default:
			return ""
		}
	}
	if !seen {
		return ""
	}
	return ", but only where a driver pod is deleted by hand: autoUpgrade is off, and the operator rolls nothing"
}

func orUnset(s string) string {
	if s == "" {
		return "(unset)"
	}
	return oneline.Escape(s)
}

package render

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/drvcheck/drvcheck/internal/plan"
)

// ganttNodes bounds the chart: GitHub renders a few hundred tasks
// slowly, and past them the table beneath says the rest.
const ganttNodes = 100

// summaryText bounds the text folded under a summary, so that a step
// summary stays under GitHub's 1 MiB.
const summaryText = 100_000

// Gantt writes the rollout as a Mermaid gantt block (GitHub renders it in
// Markdown): a section per scope, a task per node that the rollout
// reaches, from the round it starts in (the axis counts rounds) to the
// next; done when it is upgraded, crit when it fails, sticks, or never
// starts (a node that never moves is drawn after the last round). At
// most ganttNodes tasks.
func Gantt(w io.Writer, r *plan.Rolling) error {
	var b bytes.Buffer
	b.WriteString("```mermaid\ngantt\n")
	fmt.Fprintf(&b, "    title %s\n", ganttText("Rolling driver upgrade to "+r.Driver))
	b.WriteString("    dateFormat X\n    axisFormat %s\n")
	last := 0
	for _, o := range r.Nodes {
		last = max(last, o.Round)
	}
	tasks := 0
	for _, sc := range r.Scopes {
		section := false
		for _, o := range r.Nodes {
			if o.Scope != sc.Name || !o.Rolled() {
				continue
			}
			if tasks == ganttNodes {
				continue // ganttMore counts them
			}
			if !section {
				fmt.Fprintf(&b, "    section %s\n", ganttText(sc.Name))
				section = true
			}
			start, label, tag := o.Round, o.Node+" "+o.Outcome, "crit"
			if start == 0 { // held, or waiting, for good
				start = last + 1
			}
			if o.Outcome == plan.Upgraded {
				tag = "done"
			}
			fmt.Fprintf(&b, "    %s :%s, %d, %d\n", ganttText(label), tag, start, start+1)
			tasks++
		}
	}
	b.WriteString("```\n")
	if more := ganttMore(r); more > 0 {
		fmt.Fprintf(&b, "\n… and %d more node(s): see the rollout below.\n", more)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// ganttMore counts the rolled nodes past the chart's bound.
func ganttMore(r *plan.Rolling) int {
	n := 0
	for _, o := range r.Nodes {
		if o.Rolled() {
			n++
		}
	}
	return max(0, n-ganttNodes)
}

// ganttText keeps a name to what a gantt line may hold: no colon (it
// ends a task's name), no semicolon or hash (they end a line or start a
// comment), no line break, no fence.
var ganttText = strings.NewReplacer(":", " ", ";", " ", "#", " ", "\n", " ", "\r", " ", "`", "'").Replace

// RollingMarkdown prints plan --all for a step summary or a comment: its
// verdict, the gantt, and the text folded beneath.
func RollingMarkdown(w io.Writer, r *plan.Rolling) error {
	var text bytes.Buffer
	if err := Rolling(&text, "text", r); err != nil {
		return err
	}
	return foldedSummary(w, text.String(), r)
}

// foldedSummary is text's first line in bold, the rollout's gantt when
// there is one, and the whole text folded in a <pre>: HTML-escaped, so no
// fence or tag of the repository's closes it, and cut at summaryText.
func foldedSummary(w io.Writer, text string, r *plan.Rolling) error {
	first, _, _ := strings.Cut(text, "\n")
	if _, err := fmt.Fprintf(w, "<b>%s</b>\n\n", summaryEscape(first)); err != nil {
		return err
	}
	if r != nil && len(r.Nodes) > 0 {
		if err := Gantt(w, r); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if len(text) > summaryText {
		text = text[:summaryText]
	}
	_, err := fmt.Fprintf(w, "<details><summary>The rollout</summary>\n\n<pre>\n%s</pre>\n\n</details>\n\n", summaryEscape(text))
	return err
}

var summaryEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "*", "&#42;", "`", "&#96;").Replace

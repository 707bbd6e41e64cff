package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/plan"
)

// The gantt holds at most ganttNodes tasks and counts the rest; a name
// that would end a task or a line is kept to one line, no colon.
func TestGanttIsBoundedAndEscaped(t *testing.T) {
	r := &plan.Rolling{Driver: "570.86.15", Scopes: []plan.Scope{{Name: "NVIDIADriver/a: b#c"}}}
	for i := range ganttNodes + 5 {
		r.Nodes = append(r.Nodes, plan.NodeOutcome{Node: fmt.Sprintf("n%03d", i), Scope: r.Scopes[0].Name, Round: i%3 + 1, Outcome: plan.Upgraded})
	}
	r.Nodes = append(r.Nodes, plan.NodeOutcome{Node: "skipped", Scope: r.Scopes[0].Name, Outcome: plan.Skipped})
	var b bytes.Buffer
	if err := Gantt(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, " :done, "); n != ganttNodes {
		t.Errorf("%d tasks, want %d", n, ganttNodes)
	}
	if !strings.Contains(out, "    section NVIDIADriver/a  b c\n") || !strings.Contains(out, "… and 5 more node(s)") || strings.Contains(out, "skipped") {
		t.Errorf("gantt:\n%s", out)
	}
}

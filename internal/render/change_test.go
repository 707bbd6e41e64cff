package render

import (
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/operator/change"
	"github.com/drvcheck/drvcheck/internal/plan"
)

// What a repository writes (a label key, an object's name, a node's name)
// reaches the text only escaped: no line of its own, no terminal control.
func TestChangesEscapeTheInputs(t *testing.T) {
	evil := "x\n```\n# all clear\x1b[2K\r"
	c := &plan.Change{Verdict: change.RestartOnly, Base: evil, Head: "b",
		Scopes: []change.ScopeChange{{Owner: "ClusterPolicy/" + evil, Kind: change.RestartOnly,
			Fields: []change.FieldChange{{Path: "spec.daemonsets.labels." + evil, Head: evil, Class: change.InTemplate}}}},
		Nodes: []change.NodeChange{{Node: evil, Scope: "other", Kind: change.FullRollout, Why: evil}}}
	var b strings.Builder
	if err := Changes(&b, "text", c); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Count(out, "\n") != 5 || strings.ContainsAny(out, "\x1b\r") || strings.Contains(out, "\n```") {
		t.Errorf("inputs not escaped:\n%s", out)
	}
}

// A change of thousands of fields lists twenty in text.
func TestChangesListAFewFields(t *testing.T) {
	sc := change.ScopeChange{Owner: "ClusterPolicy/p", Kind: change.FullRollout}
	for range 1000 {
		sc.Fields = append(sc.Fields, change.FieldChange{Path: "spec.driver.x", Class: change.Unknown})
	}
	var b strings.Builder
	if err := Changes(&b, "text", &plan.Change{Verdict: change.FullRollout, Scopes: []change.ScopeChange{sc}}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "spec.driver.x"); n != maxFields || !strings.Contains(b.String(), "and 980 more field(s)") {
		t.Errorf("%d fields listed:\n%s", n, b.String())
	}
}

// With autoUpgrade off the verdict says the operator rolls nothing.
func TestChangesNotRolled(t *testing.T) {
	r := &plan.Rolling{Nodes: []plan.NodeOutcome{{Node: "g0", Outcome: plan.NotRolled}, {Node: "g1", Outcome: plan.Skipped}}}
	var b strings.Builder
	if err := Changes(&b, "text", &plan.Change{Verdict: change.RestartOnly, Rolling: r}); err != nil {
		t.Fatal(err)
	}
	if first := strings.SplitN(b.String(), "\n", 2)[0]; !strings.HasSuffix(first, "autoUpgrade is off, and the operator rolls nothing") {
		t.Errorf("%q", first)
	}
}

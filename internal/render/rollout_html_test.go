package render

import (
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/plan"
)

// The rollout's page carries no control character a repository wrote:
// names reach it through html/template, which escapes markup only.
func TestRollingHTMLDropsControlCharacters(t *testing.T) {
	evil := "gpu-0\x1b[2J\x07"
	r := &plan.Rolling{Driver: "580.90.07", Scopes: []plan.Scope{{Name: "ClusterPolicy/" + evil}},
		Nodes: []plan.NodeOutcome{
			{Node: evil, Scope: "ClusterPolicy/" + evil, Round: 1, Outcome: plan.Upgraded, Note: evil},
			{Node: "other" + evil, Scope: "ClusterPolicy/" + evil, Outcome: plan.Skipped},
		}}
	var b strings.Builder
	if err := RollingHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Error("a control character reached the page")
	}
	if !strings.Contains(out, "gpu-0\uFFFD[2J\uFFFD") {
		t.Error("the node's name is not on the page, marked where its control characters were")
	}
}

package policy

import (
	"context"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/tester"
)

// The drain and upgrade rules, exactly as the contract's table names them.
var drainRules = []Rule{
	{ID: "DRV020", Title: "pdb-blocks-drain", Severity: Error},
	{ID: "DRV021", Title: "pdb-overlap", Severity: Error},
	{ID: "DRV022", Title: "pdb-unmanaged-pods", Severity: Warning},
	{ID: "DRV023", Title: "drain-needs-force", Severity: Warning},
	{ID: "DRV024", Title: "pdb-selects-nothing", Severity: Warning},
	{ID: "DRV030", Title: "upgrade-stalled", Severity: Warning},
	{ID: "DRV031", Title: "cordoned-after-upgrade", Severity: Warning},
}

func TestDrainRulesAreBuiltIn(t *testing.T) {
	e, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]Rule{}
	for _, r := range e.Rules() {
		have[r.ID] = r
	}
	for _, want := range drainRules {
		got, ok := have[want.ID]
		if !ok {
			t.Errorf("%s is not a built-in rule", want.ID)
			continue
		}
		if got.Title != want.Title || got.Severity != want.Severity || got.Help == "" {
			t.Errorf("%s: title %q severity %q help %q, want %q %q and a help text", want.ID, got.Title, got.Severity, got.Help, want.Title, want.Severity)
		}
	}
}

// TestBuiltinRegoTests runs every *_test.rego of the built-in rules, and
// checks that each drain rule has passing tests of its own: removing a rule
// makes its tests fail, removing its tests fails here.
func TestBuiltinRegoTests(t *testing.T) {
	mods, err := builtinModules(true)
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string]*ast.Module{}
	for _, m := range mods {
		byFile[m.Package.Location.File] = m
	}
	ch, err := tester.NewRunner().SetModules(byFile).RaiseBuiltinErrors(true).Run(context.Background(), byFile)
	if err != nil {
		t.Fatal(err)
	}
	passed := map[string]int{}
	for r := range ch {
		if !r.Pass() {
			t.Errorf("%s.%s: %s", r.Package, r.Name, strings.TrimSpace(r.String()))
			continue
		}
		passed[r.Package]++
	}
	for _, rule := range drainRules {
		pkg := "data.drvcheck.rules." + strings.ToLower(rule.ID) + "_test"
		if passed[pkg] == 0 {
			t.Errorf("%s has no passing Rego test (%s)", rule.ID, pkg)
		}
	}
}

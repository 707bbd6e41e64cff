package policy

import (
	"context"
	"testing"
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

// TestDrainRulesAreBuiltIn holds the drain rules to the contract's table;
// TestBuiltinRegoTests runs their Rego tests.
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

package policy

import (
	"bytes"
	"context"
	"io/fs"
	"regexp"
	"slices"
	"testing"

	rules "github.com/drvcheck/drvcheck/rego"
)

var nodes = []string{"nodes"}

// The built-in rules, exactly as the README's rules table names them.
var builtinRules = []Rule{
	{ID: "DRV001", Title: "missing-driver-image", Severity: Error, Needs: []string{"catalog", "nodes"}},
	{ID: "DRV002", Title: "incomplete-node-facts", Severity: Error, Needs: nodes},
	{ID: "DRV003", Title: "precompiled-version-not-branch", Severity: Error},
	{ID: "DRV004", Title: "clusterpolicy-mixed-os", Severity: Error, Needs: nodes},
	{ID: "DRV005", Title: "nvidiadriver-owner", Severity: Error, Needs: nodes},
	{ID: "DRV006", Title: "unsupported-os-tag", Severity: Warning, Needs: nodes},
	{ID: "DRV010", Title: "unschedulable-affinity", Severity: Error, Needs: nodes},
	{ID: "DRV011", Title: "non-integer-gt-lt", Severity: Error},
	{ID: "DRV012", Title: "cuda-driver-too-old", Severity: Error, Needs: nodes},
	{ID: "DRV013", Title: "anti-affinity-exceeds-nodes", Severity: Error, Needs: nodes},
	{ID: "DRV014", Title: "unknown-label-key", Severity: Warning, Needs: nodes},
	{ID: "DRV015", Title: "gpu-request-unsatisfiable", Severity: Error, Needs: nodes},
	{ID: "DRV020", Title: "pdb-blocks-drain", Severity: Error},
	{ID: "DRV021", Title: "pdb-overlap", Severity: Error},
	{ID: "DRV022", Title: "pdb-unmanaged-pods", Severity: Warning},
	{ID: "DRV023", Title: "drain-needs-force", Severity: Warning, Needs: nodes},
	{ID: "DRV024", Title: "pdb-selects-nothing", Severity: Warning},
	{ID: "DRV025", Title: "gpu-pod-not-deletable", Severity: Error, Needs: nodes},
	{ID: "DRV026", Title: "grace-exceeds-timeout", Severity: Warning, Needs: nodes},
	{ID: "DRV027", Title: "hidden-gpu-consumer", Severity: Warning, Needs: nodes},
	{ID: "DRV028", Title: "upgrade-cannot-start", Severity: Error, Needs: nodes},
	{ID: "DRV029", Title: "rollout-window-breaks-gang", Severity: Warning, Needs: nodes},
	{ID: "DRV030", Title: "upgrade-stalled", Severity: Warning, Needs: nodes},
	{ID: "DRV031", Title: "cordoned-after-upgrade", Severity: Warning, Needs: nodes},
	{ID: "DRV040", Title: "gpu-unsupported-by-driver", Severity: Error, Needs: nodes},
	{ID: "DRV041", Title: "kernel-modules-unsupported", Severity: Error, Needs: nodes},
	{ID: "DRV042", Title: "kernel-module-type-auto-unsupported", Severity: Error, Needs: nodes},
	{ID: "DRV043", Title: "gds-needs-open-modules", Severity: Error},
}

// TestRulesAreBuiltIn holds the built-in rules to the README's rules table,
// no more and no fewer; TestBuiltinRegoTests runs their Rego tests.
func TestRulesAreBuiltIn(t *testing.T) {
	e, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]Rule{}
	for _, r := range e.Rules() {
		have[r.ID] = r
	}
	if len(have) != len(builtinRules) {
		t.Errorf("%d built-in rules, the table has %d", len(have), len(builtinRules))
	}
	for _, want := range builtinRules {
		got, ok := have[want.ID]
		if !ok {
			t.Errorf("%s is not a built-in rule", want.ID)
			continue
		}
		if got.Title != want.Title || got.Severity != want.Severity || got.Help == "" || !slices.Equal(got.Needs, want.Needs) {
			t.Errorf("%s: title %q severity %q needs %q help %q, want %q %q %q and a help text",
				want.ID, got.Title, got.Severity, got.Needs, got.Help, want.Title, want.Severity, want.Needs)
		}
	}
}

// The built-in rules write every field as a JSON pointer, the form of the
// input document, never as a path array.
func TestBuiltinFieldsArePointers(t *testing.T) {
	array := regexp.MustCompile(`"field":\s*\[`)
	err := fs.WalkDir(rules.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isRego(path, false) {
			return err
		}
		src, err := fs.ReadFile(rules.FS, path)
		if loc := array.FindIndex(src); loc != nil {
			t.Errorf("rego/%s:%d: a field written as a path array", path, 1+bytes.Count(src[:loc[0]], []byte("\n")))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

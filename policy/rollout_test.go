package policy

import (
	"context"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	rules "github.com/drvcheck/drvcheck/rego"
)

// A finding that names a node's image ("image": "missing" or "unknown")
// stalls that node in plan --all's rollout, and plan --all evaluates only
// the built-in rules whose meta says "rollout" (Engine.Only): a rule that
// words such a finding without it would be left out there, silently.
func TestImageFindingsFeedTheRollout(t *testing.T) {
	e, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	image := regexp.MustCompile(`"image":\s*"`)
	pkg := regexp.MustCompile(`(?m)^package (\S+)`)
	seen := 0
	err = fs.WalkDir(rules.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".rego") || strings.HasSuffix(path, "_test.rego") {
			return err
		}
		src, err := fs.ReadFile(rules.FS, path)
		if err != nil || !image.Match(src) {
			return err
		}
		seen++
		p := pkg.FindSubmatch(src)
		if p == nil {
			t.Errorf("%s: no package", path)
			return nil
		}
		if r, ok := e.byPkg["data."+string(p[1])]; !ok || !r.Rollout {
			t.Errorf("%s words a finding of a node's image, but its meta lacks \"rollout\": true", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatal("no built-in rule words an image finding: the pattern no longer finds them")
	}
}

// Only evaluates the packages whose meta it keeps, not those without
// meta, and still lists every rule.
func TestOnlyEvaluatesTheRulesKept(t *testing.T) {
	kept := writePolicy(t, "kept.rego", `package drvcheck.rules.kept
meta := {"id": "ACME001", "title": "kept", "severity": "warning", "rollout": true}
findings contains {"rule": "ACME001", "title": "kept", "severity": "warning", "object": {"kind": "Node", "namespace": "", "name": "n"}, "message": "kept"}
`)
	left := writePolicy(t, "left.rego", `package drvcheck.rules.left
meta := {"id": "ACME002", "title": "left", "severity": "warning"}
findings contains {"rule": "ACME002", "title": "left", "severity": "warning", "object": {"kind": "Node", "namespace": "", "name": "n"}, "message": "left"}
`)
	bare := writePolicy(t, "bare.rego", `package drvcheck.rules.bare
findings contains {"rule": "ACME003", "title": "bare", "severity": "warning", "object": {"kind": "Node", "namespace": "", "name": "n"}, "message": "bare"}
`)
	e, err := New(context.Background(), Options{Policies: []string{kept, left, bare}})
	if err != nil {
		t.Fatal(err)
	}
	in, err := NewInput(map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	count := func(e *Engine) map[string]int {
		fs, err := e.Eval(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, f := range fs {
			n[f.Rule]++
		}
		return n
	}
	all := count(e)
	if all["ACME001"] != 1 || all["ACME002"] != 1 || all["ACME003"] != 1 {
		t.Fatalf("every rule: %v", all)
	}
	only := e.Only(func(r Rule) bool { return r.Rollout })
	if got := count(only); len(got) != 1 || got["ACME001"] != 1 {
		t.Errorf("Only(rollout): %v, want ACME001 alone", got)
	}
	if len(only.Rules()) != len(e.Rules()) {
		t.Errorf("Only lists %d rules, the engine %d", len(only.Rules()), len(e.Rules()))
	}
}

// A meta "rollout" that is not a boolean is an error naming the rule.
func TestRolloutMetaIsABoolean(t *testing.T) {
	dir := writePolicy(t, "odd.rego", `package drvcheck.rules.odd
meta := {"id": "ACME004", "title": "odd", "severity": "warning", "rollout": "yes"}
findings := set()
`)
	_, err := New(context.Background(), Options{Policies: []string{dir}})
	if err == nil || !strings.Contains(err.Error(), "ACME004") {
		t.Errorf("err = %v, want one naming ACME004", err)
	}
}

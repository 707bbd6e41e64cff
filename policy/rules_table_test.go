package policy

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	rules "github.com/drvcheck/drvcheck/rego"
)

// guideRules reads the table of docs/rules-guide.md, when each rule fires:
// a row per rule, its id (a link to its entry in docs/rules.md), title and
// severity (the first word: "warning; error for ...").
func guideRules(t *testing.T) []Rule {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "docs", "rules-guide.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`^\| \[(DRV[0-9]{3})\]\(rules\.md#(drv[0-9]{3})\) \| ([a-z0-9-]+) \| (error|warning)\b`)
	var out []Rule
	for i, l := range strings.Split(string(data), "\n") {
		m := row.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if m[2] != strings.ToLower(m[1]) {
			t.Errorf("docs/rules-guide.md:%d: %s links to rules.md#%s", i+1, m[1], m[2])
		}
		out = append(out, Rule{ID: m[1], Title: m[3], Severity: m[4]})
	}
	return out
}

// TestRulesAreBuiltIn holds the built-in rules to the table of
// docs/rules-guide.md, no more and no fewer, each with a help text: the
// guide's words on when a rule fires are written by hand, and a rule added,
// renamed or made a warning without them fails here. docs/rules.md, the
// rules' own words, is generated from their meta (cmd/drvcheck's
// TestRulesDocIsGenerated); TestBuiltinRegoTests runs their Rego tests.
func TestRulesAreBuiltIn(t *testing.T) {
	e, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]Rule{}
	for _, r := range e.Rules() {
		have[r.ID] = r
	}
	table := guideRules(t)
	if len(have) != len(table) {
		t.Errorf("%d built-in rules, the table of docs/rules-guide.md has %d", len(have), len(table))
	}
	for _, want := range table {
		got, ok := have[want.ID]
		if !ok {
			t.Errorf("%s is in the table of docs/rules-guide.md and is not a built-in rule", want.ID)
			continue
		}
		if got.Title != want.Title || got.Severity != want.Severity || got.Help == "" {
			t.Errorf("%s: title %q severity %q help %q, docs/rules-guide.md says %q %q, and a help text",
				want.ID, got.Title, got.Severity, got.Help, want.Title, want.Severity)
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

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

// readmeRules reads the README's rules table: a row per rule, its id,
// title and severity (the first word: "warning; error for ...").
func readmeRules(t *testing.T) []Rule {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`^\| (DRV[0-9]{3}) \| ([a-z0-9-]+) \| (error|warning)\b`)
	var out []Rule
	for _, l := range strings.Split(string(data), "\n") {
		if m := row.FindStringSubmatch(l); m != nil {
			out = append(out, Rule{ID: m[1], Title: m[2], Severity: m[3]})
		}
	}
	return out
}

// TestRulesAreBuiltIn holds the built-in rules to the README's rules table,
// no more and no fewer, each with a help text (docs/rules.md is generated
// from the rules themselves: cmd/drvcheck's TestRulesDocIsGenerated);
// TestBuiltinRegoTests runs their Rego tests.
func TestRulesAreBuiltIn(t *testing.T) {
	e, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]Rule{}
	for _, r := range e.Rules() {
		have[r.ID] = r
	}
	table := readmeRules(t)
	if len(have) != len(table) {
		t.Errorf("%d built-in rules, the README's table has %d", len(have), len(table))
	}
	for _, want := range table {
		got, ok := have[want.ID]
		if !ok {
			t.Errorf("%s is in the README's table and is not a built-in rule", want.ID)
			continue
		}
		if got.Title != want.Title || got.Severity != want.Severity || got.Help == "" {
			t.Errorf("%s: title %q severity %q help %q, the README says %q %q, and a help text",
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

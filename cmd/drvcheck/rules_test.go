package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/rules.md is drvcheck rules -o markdown: a rule's meta changed
// without the page generated again fails here.
func TestRulesDocIsGenerated(t *testing.T) {
	code, stdout, stderr := runCLI(t, "rules", "-o", "markdown")
	if code != exitOK {
		t.Fatalf("rules -o markdown: exit %d: %s", code, stderr)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "docs", "rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	if stdout != string(want) {
		t.Errorf("docs/rules.md differs from the rules' meta: run drvcheck rules -o markdown > docs/rules.md")
	}
}

// A --policy rule is listed with the built-in ones, from its own meta.
func TestRulesListsPolicies(t *testing.T) {
	dir := t.TempDir()
	rule := `package drvcheck.rules.team001

meta := {"id": "TEAM001", "title": "no-latest", "severity": "warning", "help": "Pin an image tag."}

findings contains f if {
	false
	f := {}
}
`
	if err := os.WriteFile(filepath.Join(dir, "team001.rego"), []byte(rule), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "rules", "--policy", dir, "-o", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Rules []struct{ ID, Title, Severity, Help string }
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, r := range got.Rules {
		ids[r.ID] = r.Title + " " + r.Severity + " " + r.Help
	}
	if ids["TEAM001"] != "no-latest warning Pin an image tag." || ids["DRV001"] == "" {
		t.Errorf("rules --policy: %v", ids)
	}
	if code, _, stderr := runCLI(t, "rules", "-o", "sarif"); code != exitError || !strings.Contains(stderr, "want text, json or markdown") {
		t.Errorf("rules -o sarif: exit %d, %q", code, stderr)
	}
}

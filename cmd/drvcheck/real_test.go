package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// realCase is testdata/real/<case>/case.yaml: a run of drvcheck on inputs
// rebuilt from public sources, and the answer the upstream source gives
// (testdata/real/README.md cites both). Issue marks a case today's
// drvcheck is known not to answer yet: it must still fail, so that a fix
// drops the mark instead of leaving a stale one.
type realCase struct {
	Source   string         `json:"source"`
	Args     []string       `json:"args"`
	Exit     int            `json:"exit"`
	Stdout   *string        `json:"stdout"`
	Contains []string       `json:"contains"`
	Absent   []string       `json:"absent"`
	Rules    map[string]int `json:"rules"`
	Issue    int            `json:"issue"`
}

// Every case of the corpus of public inputs gives the upstream answer.
func TestRealInputs(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "real", "*", "case.yaml"))
	if err != nil || len(dirs) < 30 {
		t.Fatalf("%d cases in testdata/real, want at least 30: %v", len(dirs), err)
	}
	for _, file := range dirs {
		dir := filepath.Dir(file)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var c realCase
			if err := yaml.UnmarshalStrict(data, &c); err != nil || len(c.Args) == 0 || c.Source == "" {
				t.Fatalf("%s: %v (want args and source)", file, err)
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Chdir(abs)
			t.Setenv("DOCKER_CONFIG", t.TempDir())
			args := append(slices.Clone(c.Args), "--cache-dir", t.TempDir())
			if c.Args[0] == "verify" || c.Args[0] == "version" {
				args = c.Args
			}
			problems := c.check(drv(t, args...))
			switch {
			case c.Issue != 0 && len(problems) == 0:
				t.Errorf("marked issue %d, but drvcheck now gives the upstream answer: drop the mark in %s and in testdata/real/README.md", c.Issue, file)
			case c.Issue != 0:
				t.Logf("known gap (issue %d): %s", c.Issue, strings.Join(problems, "; "))
			case len(problems) > 0:
				t.Errorf("%s\nsource: %s", strings.Join(problems, "\n"), c.Source)
			}
		})
	}
}

// check lists how r differs from the case's answer.
func (c realCase) check(r result) []string {
	var out []string
	add := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	if r.code != c.Exit {
		add("exit %d, want %d (stderr %q)", r.code, c.Exit, r.stderr)
	}
	if c.Stdout != nil && r.stdout != *c.Stdout {
		add("stdout %q, want %q", r.stdout, *c.Stdout)
	}
	for _, s := range c.Contains {
		if !strings.Contains(r.stdout+r.stderr, s) {
			add("output lacks %q: %s%s", s, r.stdout, r.stderr)
		}
	}
	for _, s := range c.Absent {
		if strings.Contains(r.stdout+r.stderr, s) {
			add("output holds %q", s)
		}
	}
	if len(c.Rules) > 0 {
		var rep jsonReport
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			add("not a JSON report: %v", err)
			return out
		}
		for rule, n := range c.Rules {
			if got := len(rep.byRule(rule)); got != n {
				add("%s: %d finding(s), want %d", rule, got, n)
			}
		}
	}
	return out
}

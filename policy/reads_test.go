package policy

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// What a package reads of the input decides whether it may run before the
// drain sections exist: the built-in rules of budgets and drains wait, the
// rest do not, and a custom rule that reaches the input through a
// function, a computed key or the whole input waits too.
func TestInputReads(t *testing.T) {
	dir := writePolicy(t, "acme.rego", `package drvcheck.rules.acme_direct

import data.drvcheck.lib

meta := {"id": "ACME1", "title": "t", "severity": "warning", "help": "h"}

findings contains f if {
	some n in input.nodes
	f := lib.finding(meta, n.object, {"message": n.name})
}
`)
	for name, src := range map[string]string{
		"lib.rego": `package drvcheck.rules.acme_lib

budget(i) := input.pdbs[i]
`,
		"through_function.rego": `package drvcheck.rules.acme_function

import data.drvcheck.lib

meta := {"id": "ACME2", "title": "t", "severity": "warning", "help": "h"}

findings contains f if {
	b := data.drvcheck.rules.acme_lib.budget(0)
	f := lib.finding(meta, b.object, {"message": b.name})
}
`,
		"computed_key.rego": `package drvcheck.rules.acme_computed

import data.drvcheck.lib

meta := {"id": "ACME3", "title": "t", "severity": "warning", "help": "h"}

findings contains f if {
	some k in ["nodes"]
	some n in input[k]
	f := lib.finding(meta, n.object, {"message": n.name})
}
`,
		"whole.rego": `package drvcheck.rules.acme_whole

import data.drvcheck.lib

meta := {"id": "ACME4", "title": "t", "severity": "warning", "help": "h"}

findings contains f if {
	x := object.get(input, "drain", {})
	count(x) > 1
	f := lib.finding(meta, {"kind": "Node", "name": "n"}, {"message": "m"})
}
`,
	} {
		writeFile(t, filepath.Join(dir, name), src)
	}
	e, err := New(context.Background(), Options{Policies: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	drain := []string{"pdbs", "drain", "upgrade"}
	want := map[string]bool{
		"/acme.rego": false, "/through_function.rego": true, "/computed_key.rego": true, "/whole.rego": true,
		"/drv001_": false, "/drv012_": false, "/drv040_": false,
		"/drv020_": true, "/drv023_": true, "/drv030_": true,
	}
	seen := 0
	for i, where := range e.where {
		for pkg, waits := range want {
			if !strings.Contains(where, pkg) {
				continue
			}
			seen++
			if got := e.reads[i].any(drain); got != waits {
				t.Errorf("%s (%s) reads the drain sections: %t, want %t (%+v)", pkg, where, got, waits, e.reads[i])
			}
		}
	}
	if seen != len(want) {
		t.Fatalf("found %d of the %d packages among %v", seen, len(want), e.where)
	}
}

// The packages that read no later section run before it is built and see
// the input without it; the others see it whole; a section that cannot be
// built is the evaluation's error.
func TestEvalLaterWaitsOnlyForWhatARuleReads(t *testing.T) {
	dir := writePolicy(t, "acme.rego", `package drvcheck.rules.acme_early

import data.drvcheck.lib

meta := {"id": "ACME1", "title": "t", "severity": "warning", "help": "h"}

findings contains f if {
	some n in input.nodes
	f := lib.finding(meta, n.object, {"message": sprintf("early sees %v", [n.name])})
}
`)
	writeFile(t, filepath.Join(dir, "late.rego"), `package drvcheck.rules.acme_late

import data.drvcheck.lib

meta := {"id": "ACME2", "title": "t", "severity": "warning", "help": "h"}

findings contains f if {
	some n in input.nodes
	f := lib.finding(meta, n.object, {"message": sprintf("late sees %v and %v", [n.name, input.drain.n])})
}
`)
	e, err := New(context.Background(), Options{Policies: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	in, err := NewInput(map[string]any{"nodes": []any{map[string]any{"name": "n1", "object": map[string]any{"kind": "Node", "name": "n1"}}}})
	if err != nil {
		t.Fatal(err)
	}
	// feed sends the early package before it waits, the late one after.
	jobs := make(chan int, len(e.findings))
	inputs := make([]*Input, len(e.findings))
	var before []string
	later := &Later{Keys: []string{"drain"}, Wait: func(context.Context) (map[string]any, error) {
		for len(jobs) > 0 {
			before = append(before, e.where[<-jobs])
		}
		return map[string]any{"drain": map[string]any{"n": 7}}, nil
	}}
	if err := e.feed(context.Background(), jobs, inputs, in, later, func() {}); err != nil {
		t.Fatal(err)
	}
	close(jobs)
	var after []string
	for i := range jobs {
		after = append(after, e.where[i])
	}
	if !containsPart(before, "acme.rego") || containsPart(before, "late.rego") || !containsPart(after, "late.rego") {
		t.Errorf("sent before the section was built: %v; after: %v", before, after)
	}

	fs, err := e.EvalLater(context.Background(), in, later)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, f := range fs {
		if strings.HasPrefix(f.Rule, "ACME") {
			msgs = append(msgs, f.Message)
		}
	}
	if got := strings.Join(msgs, "; "); got != `early sees n1; late sees n1 and 7` {
		t.Errorf("messages: %s", got)
	}

	broken := errors.New("budget b: bad selector")
	_, err = e.EvalLater(context.Background(), in, &Later{Keys: []string{"drain"}, Wait: func(context.Context) (map[string]any, error) {
		return nil, broken
	}})
	if !errors.Is(err, broken) {
		t.Errorf("a section that cannot be built: %v, want %v", err, broken)
	}
}

func containsPart(list []string, part string) bool {
	for _, s := range list {
		if strings.Contains(s, part) {
			return true
		}
	}
	return false
}

package policy

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/drvcheck/drvcheck/internal/object"
)

func writePolicy(t *testing.T, name, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func eval(t *testing.T, e *Engine, input map[string]any) ([]Finding, error) {
	t.Helper()
	in, err := NewInput(input)
	if err != nil {
		t.Fatal(err)
	}
	return e.Eval(context.Background(), in)
}

const customRule = `package drvcheck.rules.acme

import data.drvcheck.lib

meta := {"id": "ACME001", "title": "kernel-not-approved", "severity": "warning", "help": "h"}

findings contains f if {
	some node in lib.gpu_nodes
	not node.kernel in data.acme.kernels
	f := lib.finding(meta, node.object, {"node": node.name, "message": sprintf("kernel %s is not approved", [node.kernel]), "field": ["metadata", "labels"]})
}
`

func TestCustomRuleWithDataAddsFindingsAndMeta(t *testing.T) {
	dir := writePolicy(t, "acme.rego", customRule)
	data := filepath.Join(t.TempDir(), "kernels.yaml")
	if err := os.WriteFile(data, []byte("acme:\n  kernels: [5.15.0-119-generic]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := New(context.Background(), Options{Policies: []string{dir}, Data: []string{data}})
	if err != nil {
		t.Fatal(err)
	}
	if !e.Custom() {
		t.Fatal("custom rules not noticed")
	}
	node := func(name, kernel string) map[string]any {
		return map[string]any{"name": name, "gpu": true, "kernel": kernel, "tag": "", "problems": []any{},
			"object": map[string]any{"kind": "Node", "namespace": "", "name": name}}
	}
	fs, err := eval(t, e, map[string]any{
		"catalog": map[string]any{"configured": false},
		"nodes":   []any{node("ok", "5.15.0-119-generic"), node("bad", "6.8.0-52-generic")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Rule != "ACME001" || fs[0].Node != "bad" || fs[0].Severity != Warning {
		t.Fatalf("findings %+v", fs)
	}
	if len(fs[0].Field) != 2 {
		t.Fatalf("field %v not kept", fs[0].Field)
	}
	var ids []string
	for _, r := range e.Rules() {
		ids = append(ids, r.ID)
	}
	if got := strings.Join(ids, ","); !strings.Contains(got, "ACME001") || !strings.HasPrefix(got, "ACME001,DRV001,DRV002") {
		t.Fatalf("rules %s", got)
	}
}

func TestBadPoliciesAreOneLineErrorsWithFileAndLine(t *testing.T) {
	cases := map[string]struct{ src, want string }{
		"parse":   {"package drvcheck.rules.x\n\nfindings contains f if {\n  f := \n}\n", "x.rego:5: rego_parse_error"},
		"compile": {"package drvcheck.rules.x\n\nfindings contains f if {\n  f := undefined_fn(1)\n}\n", "x.rego:4: rego_type_error"},
		"package": {"package main\n\ndeny contains 1 if true\n", "x.rego:1: package main is not under drvcheck.rules"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := writePolicy(t, "x.rego", c.src)
			_, err := New(context.Background(), Options{Policies: []string{dir}})
			if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, c.want)) {
				t.Fatalf("error %v, want prefix %q", err, filepath.Join(dir, c.want))
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
		})
	}
}

func TestRuntimeErrorsAndBadFindingsFail(t *testing.T) {
	cases := map[string]struct{ src, want string }{
		"builtin error": {`package drvcheck.rules.x
findings contains f if {
	n := to_number("not a number")
	f := {"rule": "X", "title": "t", "severity": "error", "message": sprintf("%v", [n]), "object": {"kind": "Node", "namespace": "", "name": "a"}}
}`, "x.rego:3: eval_builtin_error"},
		"no severity": {`package drvcheck.rules.x
findings contains {"rule": "X", "title": "t", "message": "m", "object": {"kind": "Node", "namespace": "", "name": "a"}}`, `x.rego:2: rule X: severity "" is not error, warning or info`},
		"no object": {`package drvcheck.rules.x
findings contains {"rule": "X", "title": "t", "severity": "error", "message": "m"}`, "x.rego:2: rule X: a finding has no object"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := writePolicy(t, "x.rego", c.src)
			e, err := New(context.Background(), Options{Policies: []string{dir}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = eval(t, e, map[string]any{"nodes": []any{}, "catalog": map[string]any{"configured": false}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

func TestMissingPolicyAndDataPaths(t *testing.T) {
	if _, err := New(context.Background(), Options{Policies: []string{"nope"}}); err == nil || err.Error() != "policy nope: no such file or directory" {
		t.Fatalf("policy error %v", err)
	}
	if _, err := New(context.Background(), Options{Data: []string{"nope.json"}}); err == nil || !strings.HasPrefix(err.Error(), "data:") {
		t.Fatalf("data error %v", err)
	}
}

func TestSortFollowsTheContract(t *testing.T) {
	fs := []Finding{
		{Rule: "DRV010", Object: object.Ref{Namespace: "b", Name: "a"}},
		{Rule: "DRV001", Object: object.Ref{Name: "z"}},
		{Rule: "DRV010", Object: object.Ref{Namespace: "a", Name: "z"}},
		{Rule: "DRV001", Object: object.Ref{Name: "a"}},
	}
	Sort(fs)
	var got []string
	for _, f := range fs {
		got = append(got, f.Rule+":"+f.Object.Namespace+"/"+f.Object.Name)
	}
	if strings.Join(got, " ") != "DRV001:/a DRV001:/z DRV010:a/z DRV010:b/a" {
		t.Fatalf("order %v", got)
	}
}

func TestNestedRulePackagesAreEvaluated(t *testing.T) {
	dir := writePolicy(t, "deep.rego", `package drvcheck.rules.acme.gpu.deep

findings contains {"rule": "DEEP1", "title": "t", "severity": "info", "message": "m", "object": {"kind": "Node", "namespace": "", "name": n.name}} if {
	some n in input.nodes
}
`)
	e, err := New(context.Background(), Options{Policies: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := eval(t, e, map[string]any{"catalog": map[string]any{"configured": false}, "nodes": []any{map[string]any{"name": "a", "gpu": false}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Rule != "DEEP1" {
		t.Fatalf("findings %+v", fs)
	}
}

func TestFieldAsJSONPointer(t *testing.T) {
	f, err := toFinding(ast.MustParseTerm(`{"rule": "X", "title": "t", "severity": "error", "message": "m",
		"object": {"kind": "Node", "namespace": "", "name": "n"},
		"field": "/metadata/labels/nvidia.com~1gpu.present"}`).Value)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(f.Field) != "[metadata labels nvidia.com/gpu.present]" {
		t.Fatalf("field %v", f.Field)
	}
}

// A misspelt key would silently lose what it carries (a "feild" loses the
// finding its line): it is an error naming the rule's file and line.
func TestUnknownFindingKeyNamesTheRule(t *testing.T) {
	dir := writePolicy(t, "typo.rego", `package drvcheck.rules.typo

findings contains {"rule": "TYPO1", "title": "t", "severity": "info", "message": "m", "feild": "/spec",
	"object": {"kind": "Node", "namespace": "", "name": n.name}} if {
	some n in input.nodes
}
`)
	e, err := New(context.Background(), Options{Policies: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = eval(t, e, map[string]any{"nodes": []any{map[string]any{"name": "a"}}})
	if err == nil || !strings.Contains(err.Error(), "typo.rego:3:") || !strings.Contains(err.Error(), `unknown key "feild"`) {
		t.Fatalf("error %v, want typo.rego:3 and the unknown key", err)
	}
}

func TestFindingKeyOfTheWrongType(t *testing.T) {
	_, err := toFinding(ast.MustParseTerm(`{"rule": "X", "title": "t", "severity": "error", "message": "m",
		"object": {"kind": "Node", "namespace": "", "name": "n"}, "stalls": "n"}`).Value)
	if err == nil || !strings.Contains(err.Error(), `"stalls"`) {
		t.Fatalf("error %v, want the stalls key named", err)
	}
}

// No rule sends anything out unless the user allows the host: http.send
// fails (and reaches no server) by default, and opa.runtime, which holds
// the environment, is not a built-in at all.
func TestNetworkIsClosedToRules(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	dir := writePolicy(t, "leak.rego", fmt.Sprintf(`package drvcheck.rules.leak

findings contains {"rule": "LEAK1", "title": "t", "severity": "info", "message": "sent",
	"object": {"kind": "Node", "namespace": "", "name": "n"}} if {
	http.send({"method": "POST", "url": %q, "body": input}).status_code == 200
}
`, srv.URL))
	e, err := New(context.Background(), Options{Policies: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eval(t, e, map[string]any{"nodes": []any{}}); err == nil || !strings.Contains(err.Error(), "disallowed host") {
		t.Errorf("http.send to a host not allowed: %v", err)
	}
	if hits.Load() != 0 {
		t.Fatalf("the server got %d request(s)", hits.Load())
	}
	allowed, err := New(context.Background(), Options{Policies: []string{dir}, AllowNet: []string{u.Hostname()}})
	if err != nil {
		t.Fatal(err)
	}
	if fs, err := eval(t, allowed, map[string]any{"nodes": []any{}}); err != nil || len(fs) != 1 || hits.Load() != 1 {
		t.Errorf("with --allow-net %s: %v %v, %d request(s)", u.Hostname(), fs, err, hits.Load())
	}
	env := writePolicy(t, "env.rego", `package drvcheck.rules.env

findings contains {"rule": "ENV1", "title": "t", "severity": "info", "message": sprintf("%v", [opa.runtime().env]),
	"object": {"kind": "Node", "namespace": "", "name": "n"}}
`)
	if _, err := New(context.Background(), Options{Policies: []string{env}}); err == nil || !strings.Contains(err.Error(), "opa.runtime") {
		t.Errorf("opa.runtime compiled: %v", err)
	}
}

func TestEvaluationDeadline(t *testing.T) {
	dir := writePolicy(t, "slow.rego", `package drvcheck.rules.slow

findings contains {"rule": "SLOW1", "title": "t", "severity": "info", "message": sprintf("%d", [n]),
	"object": {"kind": "Node", "namespace": "", "name": "n"}} if {
	some n in numbers.range(1, 100000000)
	n < 0
}
`)
	e, err := New(context.Background(), Options{Policies: []string{dir}, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = eval(t, e, map[string]any{"nodes": []any{}})
	if err == nil || err.Error() != "the rules did not finish within 200ms (--timeout): a rule may iterate over too much" {
		t.Fatalf("error %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("the deadline took %s to stop the rules", d)
	}
}

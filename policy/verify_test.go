package policy

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	rules "github.com/drvcheck/drvcheck/rego"
)

// TestBuiltinRegoTests runs every built-in *_test.rego through Verify, the
// code behind drvcheck verify, so that make test runs the Rego unit tests.
func TestBuiltinRegoTests(t *testing.T) {
	results, err := Verify(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tested := map[string]int{}
	for _, r := range results {
		tested[r.File]++
		if r.Outcome != Pass {
			t.Errorf("%s:%d %s.%s: %s %s %s", r.File, r.Row, r.Package, r.Name, r.Outcome, r.Error, r.Output)
		}
	}
	// Every built-in rule has a test file beside it that holds tests.
	err = fs.WalkDir(rules.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".rego") || isTest(path) {
			return err
		}
		test := "rego/" + strings.TrimSuffix(path, ".rego") + "_test.rego"
		if tested[test] == 0 {
			t.Errorf("%s: no tests ran from %s", path, test)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestVerifyUserPolicies(t *testing.T) {
	dir := filepath.Join("..", "testdata", "policies")
	results, err := Verify(context.Background(), Options{Policies: []string{filepath.Join(dir, "acme"), filepath.Join(dir, "broken")}})
	if err != nil {
		t.Fatal(err)
	}
	outcome := map[string]string{}
	for _, r := range results {
		outcome[r.Package+"."+r.Name] = r.Outcome
	}
	for name, want := range map[string]string{
		"acme_test.test_unapproved_kernel_is_reported":                   Pass,
		"acme_test.test_non_gpu_nodes_are_ignored":                       Pass,
		"drvcheck.rules.broken001_test.test_schedulable_node_is_fine":    Pass,
		"drvcheck.rules.broken001_test.test_cordoned_node_counted_twice": Fail,
		"drvcheck.rules.drv001_test.test_lab_node_3_lacks_its_image":     Pass,
	} {
		if outcome[name] != want {
			t.Errorf("%s: %q, want %q", name, outcome[name], want)
		}
	}
}

func TestVerifyCompileError(t *testing.T) {
	_, err := Verify(context.Background(), Options{Policies: []string{filepath.Join("..", "testdata", "policies", "uncompilable")}})
	if err == nil || !strings.Contains(err.Error(), "typo_test.rego:7: rego_type_error: undefined function data.drvcheck.lib.findings") {
		t.Errorf("err = %v", err)
	}
}

// A rule module (not a test) outside the drvcheck packages is still an
// error, as for check.
func TestVerifyRejectsStrayRule(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "x.rego"), "package acme\n\nallow := true\n")
	_, err := Verify(context.Background(), Options{Policies: []string{dir}})
	if err == nil || !strings.Contains(err.Error(), "package acme is not under drvcheck.rules") {
		t.Errorf("err = %v", err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The Rego tests run under the same capabilities as the rules: a test
// cannot send anything out either.
func TestVerifyKeepsTheNetworkClosed(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	defer srv.Close()
	dir := writePolicy(t, "leak_test.rego", fmt.Sprintf(`package leak_test

test_send if {
	http.send({"method": "GET", "url": %q}).status_code == 200
}
`, srv.URL))
	results, err := Verify(context.Background(), Options{Policies: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Name == "test_send" && r.Outcome == Pass {
			t.Errorf("test_send passed: the request went out")
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("the server got %d request(s)", hits.Load())
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var (
	matrix = filepath.Join(lab, "support-matrix.csv")
	pols   = filepath.Join("..", "..", "testdata", "policies")
)

func TestVerifyExitCodes(t *testing.T) {
	out, errs, code := drvcheck(t, "", "verify")
	if code != 0 || !strings.Contains(out, "PASS  drvcheck.rules.drv001_test.test_lab_node_3_lacks_its_image") ||
		!strings.HasSuffix(out, " passed, 0 failed\n") {
		t.Errorf("verify (built-in): exit %d\n%s%s", code, out, errs)
	}
	out, _, code = drvcheck(t, "", "verify", filepath.Join(pols, "acme"))
	if code != 0 || !strings.Contains(out, "PASS  acme_test.test_unapproved_kernel_is_reported") {
		t.Errorf("verify acme: exit %d\n%s", code, out)
	}
	out, _, code = drvcheck(t, "", "verify", filepath.Join(pols, "broken"))
	if code != 1 || !strings.Contains(out, "FAIL  drvcheck.rules.broken001_test.test_cordoned_node_counted_twice  ") ||
		!strings.Contains(out, " passed, 1 failed\n") {
		t.Errorf("verify broken: exit %d\n%s", code, out)
	}
	_, errs, code = drvcheck(t, "", "verify", filepath.Join(pols, "uncompilable"))
	if code != 2 || !strings.Contains(errs, "undefined function data.drvcheck.lib.findings") || strings.Count(errs, "\n") != 1 {
		t.Errorf("verify uncompilable: exit %d, stderr %q", code, errs)
	}
	out, _, code = drvcheck(t, "", "verify", "-o", "json", "--policy", filepath.Join(pols, "broken"))
	var doc struct {
		Tests []struct{ Name, Outcome string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 1 || len(doc.Tests) < 3 {
		t.Errorf("verify -o json: exit %d, err %v\n%s", code, err, out)
	}
	if _, errs, code = drvcheck(t, "", "verify", "-o", "sarif"); code != 2 || !strings.Contains(errs, "want text or json") {
		t.Errorf("verify -o sarif: exit %d, %q", code, errs)
	}
}

func TestCheckReports(t *testing.T) {
	dir := t.TempDir()
	sarif, md, js := filepath.Join(dir, "out.sarif"), filepath.Join(dir, "summary.md"), filepath.Join(dir, "out.json")
	out, errs, code := drvcheck(t, "", "check", lab, "--matrix", matrix, "-o", "github",
		"--report", "sarif="+sarif, "--report", "markdown="+md, "--report", "json="+js)
	if code != 1 {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	if !strings.HasPrefix(out, "::error file=testdata/lab/k8s/node3.yaml,line=15,title=DRV001 missing-driver-image::") {
		t.Errorf("stdout = %q", out)
	}
	for path, want := range map[string]string{
		sarif: `"ruleId": "DRV001"`,
		md:    "| ❌ | DRV001 missing-driver-image | Node/lab-node-3 | `testdata/lab/k8s/node3.yaml:15` |",
		js:    `"suppressed": 0,`,
	} {
		data, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(data), want) {
			t.Errorf("%s lacks %q (err %v):\n%s", path, want, err, data)
		}
	}
}

func TestCheckReportFlagErrors(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"sarif", "want FORMAT=FILE"},
		{"pdf=x.pdf", `format "pdf" is not one of`},
		{"json=" + filepath.Join(t.TempDir(), "no", "such", "dir.json"), "no such file or directory"},
	} {
		_, errs, code := drvcheck(t, "", "check", lab, "--matrix", matrix, "--report", tc.arg)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("--report %s: exit %d, stderr %q", tc.arg, code, errs)
		}
	}
}

// Exceptions from the config file: a live one suppresses (exit 0, listed in
// text output), an expired one warns on stderr and the finding is back.
func TestCheckConfigExceptions(t *testing.T) {
	dir := t.TempDir()
	live := filepath.Join(dir, "live.yaml")
	writeFile(t, live, `exceptions:
- rule: DRV001
  object: Node/lab-node-3
  reason: image build tracked in OPS-12
`)
	// The lab's node files only: its workloads bring findings of other rules
	// (DRV010 on cuda13-job, DRV020 on trainer-pdb, DRV023 on lab-node-0).
	nodes, node3 := filepath.Join(lab, "k8s", "nodes.yaml"), filepath.Join(lab, "k8s", "node3.yaml")
	out, errs, code := drvcheck(t, "", "check", nodes, node3, "--matrix", matrix, "--config", live)
	if code != 0 || !strings.Contains(out, "SUPPRESSED (1)") || !strings.Contains(out, "image build tracked in OPS-12") ||
		!strings.Contains(out, "0 error(s), 0 warning(s), 1 suppressed;") {
		t.Errorf("live exception: exit %d\n%s%s", code, out, errs)
	}
	expired := filepath.Join(dir, "expired.yaml")
	writeFile(t, expired, `exceptions:
- {rule: DRV001, object: Node/lab-node-3, reason: old, expires: "2020-01-01"}
`)
	out, errs, code = drvcheck(t, "", "check", nodes, node3, "--matrix", matrix, "--config", expired, "-o", "json")
	if code != 1 || !strings.Contains(errs, "drvcheck: warning: exception for DRV001 on Node/lab-node-3 ("+expired+") expired on 2020-01-01") ||
		!strings.Contains(out, "expired on 2020-01-01: old)") {
		t.Errorf("expired exception: exit %d\n%s%s", code, out, errs)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// audit lists facts: a node whose DRV001 is suppressed still lacks its image.
func TestAuditIgnoresExceptions(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "c.yaml")
	writeFile(t, conf, "exceptions:\n- {rule: DRV001, object: Node/lab-node-3, reason: known}\n")
	out, errs, code := drvcheck(t, "", "audit", lab, "--matrix", matrix, "--config", conf)
	if code != 1 || out != "lab-node-3 MISSING 550-6.8.0-52-generic-ubuntu24.04\n" {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	if _, errs, code := drvcheck(t, "", "audit", lab, "--matrix", matrix, "--report", "json=x.json"); code != 2 || !strings.Contains(errs, "unknown flag: --report") {
		t.Errorf("audit --report: exit %d %q", code, errs)
	}
}

// Without nodes, the rules that judge against them cannot: check says which
// on stderr and counts them, rather than pass in silence.
func TestCheckWithoutNodesSaysWhatItSkipped(t *testing.T) {
	r := drv(t, "check", filepath.Join(lab, "k8s", "pdb.yaml"), filepath.Join(lab, "k8s", "trainer.yaml"), "--matrix", matrix, "-o", "json")
	var rep jsonReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if !strings.Contains(r.stderr, "no Node in the input") || !strings.Contains(r.stderr, "DRV010 (unschedulable-affinity)") ||
		strings.Contains(r.stderr, "--matrix") || rep.Summary.SkippedRules != 22 {
		t.Fatalf("exit %d, skipped %d, stderr %q", r.code, rep.Summary.SkippedRules, r.stderr)
	}
	if r := drv(t, "check", lab, "--matrix", matrix, "-o", "json"); r.stderr != "" || !strings.Contains(r.stdout, `"skipped_rules": 0`) {
		t.Fatalf("the lab has nodes and a matrix: stderr %q", r.stderr)
	}
}

// Objects that look like workloads but are not read (a removed
// apiVersion, a misspelt kind) are named once per kind and version on
// stderr and counted, never skipped in silence; other kinds pass quietly.
func TestUncheckedWorkloadsAreNamed(t *testing.T) {
	f := filepath.Join(t.TempDir(), "old.yaml")
	content := "apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata: {name: d}\n---\n" +
		"apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata: {name: e}\n---\n" +
		"apiVersion: apps/v1\nkind: Deploymnet\nmetadata: {name: t}\n---\n" +
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n" +
		"apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: r}\n"
	if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	r := drv(t, "check", f, lab, "--matrix", matrix, "-o", "json")
	var rep jsonReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	want := []string{
		"drvcheck: warning: 2 Deployment object(s) of apiVersion extensions/v1beta1 not checked: that apiVersion is no longer served; use apps/v1 (the first at " + f + ":1)",
		"drvcheck: warning: 1 Deploymnet object(s) of apiVersion apps/v1 not checked: no such kind; did you mean Deployment? (the first at " + f + ":9)",
	}
	if got := strings.Split(strings.TrimSpace(r.stderr), "\n"); !slices.Equal(got, want) || rep.Summary.UncheckedObjects != 3 {
		t.Fatalf("unchecked %d, stderr:\n%s", rep.Summary.UncheckedObjects, r.stderr)
	}
}

// A repository holds more YAML than manifests: what holds no Kubernetes
// object is skipped with one line on stderr and counted, and --strict fails
// on it as before.
func TestSkipsWhatIsNotKubernetes(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "env", "prod-values.yaml"), "replicaCount: 4\n")
	writeFile(t, filepath.Join(dir, "tpl", "d.yaml"), "kind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n  {{- if .x }}\n")
	writeFile(t, filepath.Join(dir, "ci", "build.yml"), "name: build\non: [push]\njobs: {}\n")
	rep := drvJSON(t, "check", lab, dir, "--matrix", matrix)
	want := drvJSON(t, "check", lab, "--matrix", matrix)
	if rep.Summary.SkippedFiles != 3 || len(rep.Findings) != len(want.Findings) {
		t.Errorf("summary %+v, %d findings, want 3 skipped and %d findings", rep.Summary, len(rep.Findings), len(want.Findings))
	}
	r := drv(t, "check", lab, dir, "--matrix", matrix)
	if !strings.Contains(r.stderr, "drvcheck: warning: skipped 3 file(s) that hold no Kubernetes object (the first: "+filepath.Join(dir, "ci", "build.yml")+": no kind") {
		t.Errorf("stderr %q", r.stderr)
	}
	if r := drv(t, "check", lab, dir, "--strict"); r.code != exitError || !strings.Contains(r.stderr, "build.yml:1: document has no kind") {
		t.Errorf("--strict: exit %d %q", r.code, r.stderr)
	}
}

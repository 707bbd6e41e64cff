package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const lab = "../../testdata/lab"

// drvcheck is drvStdin for tests that take the three results apart.
func drvcheck(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	r := drvStdin(t, stdin, args...)
	return r.stdout, r.stderr, r.code
}

// labMatrix writes the lab's support matrix plus extra rows.
func labMatrix(t *testing.T, extra ...string) string {
	t.Helper()
	base, err := os.ReadFile(filepath.Join(lab, "support-matrix.csv"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "support-matrix.csv")
	content := string(base) + strings.Join(extra, "\n")
	if len(extra) > 0 {
		content += "\n"
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLabTags(t *testing.T) {
	want := map[string]string{
		"lab-node-0": "550-5.15.0-119-generic-ubuntu22.04",
		"lab-node-1": "535-5.15.0-107-generic-ubuntu22.04",
		"lab-node-2": "550-6.8.0-45-generic-ubuntu24.04",
		"lab-node-3": "550-6.8.0-52-generic-ubuntu24.04",
	}
	for node, tag := range want {
		out, errOut, code := drvcheck(t, "", "tag", node, lab)
		if code != 0 || out != tag+"\n" || errOut != "" {
			t.Errorf("tag %s: code %d out %q err %q, want %s", node, code, out, errOut, tag)
		}
	}
}

func TestLabAuditBeforeAndAfterTheFourthRow(t *testing.T) {
	out, _, code := drvcheck(t, "", "audit", lab, "--matrix", labMatrix(t))
	if code != 1 || out != "lab-node-3 MISSING 550-6.8.0-52-generic-ubuntu24.04\n" {
		t.Fatalf("audit with 3 rows: code %d out %q", code, out)
	}
	out, _, code = drvcheck(t, "", "audit", lab, "--matrix", labMatrix(t, "550,6.8.0-52-generic,ubuntu24.04"))
	if code != 0 || out != "OK\n" {
		t.Fatalf("audit with 4 rows: code %d out %q", code, out)
	}
}

func TestAuditNeedsASource(t *testing.T) {
	out, errOut, code := drvcheck(t, "", "audit", lab)
	if code != 2 || out != "" || !strings.Contains(errOut, "needs --matrix or --registry") {
		t.Fatalf("code %d out %q err %q", code, out, errOut)
	}
}

type jsonOut struct {
	Findings []struct {
		Rule     string `json:"rule"`
		Severity string `json:"severity"`
		Object   struct{ Kind, Namespace, Name string }
		Node     string `json:"node"`
		Tag      string `json:"tag"`
		Message  string `json:"message"`
		File     string `json:"file"`
		Line     int    `json:"line"`
	} `json:"findings"`
	Summary map[string]int `json:"summary"`
}

func TestCheckJSONNamesFileAndLine(t *testing.T) {
	m := labMatrix(t)
	out, _, code := drvcheck(t, "", "check", lab, "--matrix", m, "-o", "json")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	var got jsonOut
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	var drv001 int
	for _, f := range got.Findings {
		if f.Rule != "DRV001" {
			continue
		}
		drv001++
		if f.Node != "lab-node-3" || f.Tag != "550-6.8.0-52-generic-ubuntu24.04" ||
			f.File != filepath.Join(lab, "k8s/node3.yaml") || f.Line != 15 || f.Object.Kind != "Node" ||
			f.Message != "no precompiled driver image 550-6.8.0-52-generic-ubuntu24.04 in "+m+": not published yet: the newest generic kernel with a 550 tag for ubuntu24.04 is 6.8.0-45-generic; hold the node's kernel there, or wait" {
			t.Fatalf("DRV001 finding %+v", f)
		}
	}
	if drv001 != 1 || got.Summary["gpu_nodes"] != 4 || got.Summary["objects"] != 9 || got.Summary["errors"] < 1 {
		t.Fatalf("DRV001 count %d summary %v", drv001, got.Summary)
	}
}

func TestCheckWithoutSourceSaysDRV001IsSkipped(t *testing.T) {
	out, errOut, _ := drvcheck(t, "", "check", filepath.Join(lab, "k8s/node3.yaml"), "-o", "json")
	if !strings.Contains(errOut, "DRV001 (missing-driver-image) is skipped") {
		t.Fatalf("stderr %q", errOut)
	}
	if strings.Contains(out, "DRV001") || !strings.Contains(out, `"findings": []`) {
		t.Fatalf("stdout %s", out)
	}
}

func TestFailOn(t *testing.T) {
	m := labMatrix(t)
	if _, _, code := drvcheck(t, "", "check", lab, "--matrix", m, "--fail-on", "none"); code != 0 {
		t.Fatalf("--fail-on none exit %d", code)
	}
	if _, errOut, code := drvcheck(t, "", "check", lab, "--matrix", m, "--fail-on", "sometimes"); code != 2 || !strings.Contains(errOut, "--fail-on") {
		t.Fatalf("bad --fail-on: exit %d %q", code, errOut)
	}
}

func TestStdinIsAPath(t *testing.T) {
	node3, err := os.ReadFile(filepath.Join(lab, "k8s/node3.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, _, code := drvcheck(t, string(node3), "audit", "-", "--matrix", labMatrix(t))
	if code != 1 || out != "lab-node-3 MISSING 550-6.8.0-52-generic-ubuntu24.04\n" {
		t.Fatalf("code %d out %q", code, out)
	}
}

func TestConfigFileGivesDefaults(t *testing.T) {
	dir := t.TempDir()
	m := labMatrix(t)
	cfg := filepath.Join(dir, "drvcheck.yaml")
	if err := os.WriteFile(cfg, []byte("matrix: ["+m+"]\nfail-on: none\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The matrix is outside the config's folder, which is no repository:
	// a repository's config names its own files only, unless trusted.
	_, errOut, code := drvcheck(t, "", "check", lab, "--config", cfg, "-o", "json")
	if code != 2 || !strings.Contains(errOut, "matrix: "+m+" is outside the repository") {
		t.Fatalf("untrusted: code %d stderr %s", code, errOut)
	}
	out, _, code := drvcheck(t, "", "check", lab, "--config", cfg, "--trust-config", "-o", "json")
	if code != 0 || !strings.Contains(out, `"rule": "DRV001"`) {
		t.Fatalf("code %d out %s", code, out)
	}
	if _, errOut, code := drvcheck(t, "", "check", lab, "--config", filepath.Join(dir, "none.yaml")); code != 2 || !strings.Contains(errOut, "none.yaml") {
		t.Fatalf("missing config: exit %d %q", code, errOut)
	}
	if err := os.WriteFile(cfg, []byte("matrixx: [a]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := drvcheck(t, "", "check", lab, "--config", cfg); code != 2 || !strings.Contains(errOut, "matrixx") {
		t.Fatalf("unknown key: exit %d %q", code, errOut)
	}
}

// Each bad input ends in exit 2 with one line on stderr naming the culprit,
// and nothing on stdout that a script could take for a result.
func TestBadInputIsExitTwoWithOneLine(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	malformed := file("bad.yaml", "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  labels: [\n")
	noKind := file("nokind.yaml", "apiVersion: v1\nmetadata: {name: a}\n")
	header := file("header.csv", "branch,kernel,os_tag\n")
	short := file("short.csv", "driver_branch,kernel,os_tag\n550,5.15.0-119-generic\n")
	policyDir := filepath.Join(dir, "policy")
	if err := os.Mkdir(policyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	brokenPolicy := filepath.Join(policyDir, "broken.rego")
	if err := os.WriteFile(brokenPolicy, []byte("package drvcheck.rules.broken\n\nfindings contains f if {\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	padded := file("padded.yaml", "apiVersion: v1\nkind: Node\nmetadata:\n  name: p\n  labels:\n    nvidia.com/gpu.present: \"true\"\n    nvidia.com/cuda.driver.major: \" 550\"\n    feature.node.kubernetes.io/kernel-version.full: 5.15.0-119-generic\n    feature.node.kubernetes.io/system-os_release.ID: ubuntu\n    feature.node.kubernetes.io/system-os_release.VERSION_ID: \"22.04\"\n")
	pdbMinus := file("pdb-minus.yaml", "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p}\nspec:\n  minAvailable: -1\n  selector: {matchLabels: {a: b}}\n")
	pdbBoth := file("pdb-both.yaml", "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p}\nspec:\n  selector: {matchLabels: {a: b}}\n  minAvailable: 1\n  maxUnavailable: 1\n")
	pdbPct := file("pdb-pct.yaml", "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p}\nspec:\n  maxUnavailable: 150%\n")
	minusReplicas := file("minus.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: -3\n  template: {spec: {containers: [{name: c, image: x}]}}\n")
	badOperator := file("op.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: x}]\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions:\n          - {key: a, operator: Gte, values: [\"1\"]}\n")
	wide := file("wide.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: 4294967300\n  template: {spec: {containers: [{name: c, image: x}]}}\n")
	dupKey := file("dup.yaml", "apiVersion: v1\nkind: Node\nmetadata:\n  labels:\n    nvidia.com/gpu.present: \"true\"\n    nvidia.com/gpu.present: \"false\"\n  name: n\n")
	gpuMinus := file("gpu-minus.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      containers:\n      - name: c\n        image: x\n        resources:\n          limits:\n            nvidia.com/gpu: -1\n")
	gpuHalf := file("gpu-half.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  initContainers: [{name: i, image: x}]\n  containers:\n  - name: c\n    image: x\n    resources: {requests: {cpu: 500m, nvidia.com/gpu: 0.5}}\n")
	oldPDB := file("pdb.yaml", "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: p}\nspec: {minAvailable: 1}\n")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"malformed yaml", []string{"check", malformed}, malformed + ":5:"},
		{"no kind", []string{"check", noKind}, noKind + ":1: document has no kind"},
		{"matrix header", []string{"audit", lab, "--matrix", header}, header + ":1: header is"},
		{"matrix short row", []string{"audit", lab, "--matrix", short}, short + ":2: want 3 fields"},
		{"missing path", []string{"check", filepath.Join(dir, "nope")}, filepath.Join(dir, "nope") + ": no such file or directory"},
		// The matrix is read before the fleet: a typo in --matrix fails at
		// once, not after thousands of objects are read.
		{"missing matrix", []string{"check", malformed, "--matrix", filepath.Join(dir, "absent.csv")}, filepath.Join(dir, "absent.csv") + ": no such file or directory"},
		{"unknown node", []string{"tag", "lab-node-9", lab}, "tag: node lab-node-9 not found"},
		{"broken policy", []string{"check", lab, "--policy", policyDir}, brokenPolicy + ":"},
		{"removed apiVersion", []string{"check", oldPDB}, "PodDisruptionBudget/default/p (" + oldPDB + ":1): apiVersion policy/v1beta1"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"unknown flag", []string{"check", lab, "--nope"}, "unknown flag: --nope"},
		{"no path", []string{"check"}, "no PATH given"},
		{"bad output", []string{"check", lab, "-o", "yaml"}, `--output "yaml"`},
		{"duplicate key", []string{"check", dupKey}, dupKey + `:6: key "nvidia.com/gpu.present" appears twice in one mapping (first on line 5)`},
		{"file too large", []string{"check", lab, "--max-file-size", "1Ki"}, "larger than 1Ki, the most one input may be (--max-file-size)"},
		{"negative timeout", []string{"audit", lab, "--matrix", matrix, "--registry-timeout", "-5s"}, "--registry-timeout -5s: must not be negative"},
		{"negative cache age", []string{"check", lab, "--cache-ttl", "-1h"}, "--cache-ttl -1h0m0s: must not be negative"},
		{"bad size", []string{"check", lab, "--max-input-size", "lots"}, `"lots" is not a size such as 512Mi`},
		{"run deadline", []string{"check", lab, "--timeout", "1ns"}, "the run did not finish within 1ns (--timeout)"},
		{"tag from a padded label", []string{"tag", "p", padded}, `tag: node p: no tag: label nvidia.com/cuda.driver.major is invalid (" 550" cannot be part of an image tag)`},
		{"negative minAvailable", []string{"check", pdbMinus}, "PodDisruptionBudget/default/p (" + pdbMinus + ":5): spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"},
		{"both numbers of a budget", []string{"check", pdbBoth}, "(" + pdbBoth + ":6): spec.minAvailable: Invalid value: \"1\": minAvailable and maxUnavailable cannot be both set"},
		{"percentage over 100", []string{"check", pdbPct}, "spec.maxUnavailable: Invalid value: \"150%\": must not be greater than 100%"},
		{"negative replicas", []string{"check", minusReplicas}, "Deployment/default/d (" + minusReplicas + ":5): spec.replicas: Invalid value: -3"},
		{"unknown operator", []string{"check", badOperator}, "(" + badOperator + ":11): spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: \"Gte\""},
		{"negative GPU limit", []string{"check", gpuMinus}, "Deployment/default/d (" + gpuMinus + ":12): spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: \"-1\": must be greater than or equal to 0"},
		{"half a GPU", []string{"check", gpuHalf}, "Pod/default/p (" + gpuHalf + ":9): spec.containers[0].resources.requests[nvidia.com/gpu]: Invalid value: \"500m\": must be an integer"},
		{"replicas beyond 32 bits", []string{"check", wide}, "Deployment/default/d (" + wide + ":5): spec.replicas: 4294967300 does not fit the field's 32 bits"},
		{"audit of no node", []string{"audit", filepath.Join(lab, "k8s", "pdb.yaml"), "--matrix", matrix}, "audit: no GPU nodes in " + filepath.Join(lab, "k8s", "pdb.yaml")},
		{"audit of empty stdin", []string{"audit", "-", "--matrix", matrix}, "audit: no GPU nodes in -"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := drvcheck(t, "", c.args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2 (stderr %q)", code, errOut)
			}
			if out != "" {
				t.Fatalf("stdout %q, want nothing", out)
			}
			if strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) {
				t.Fatalf("stderr %q, want one line containing %q", errOut, c.want)
			}
		})
	}
}

func TestNodeWithoutOrWithEmptyLabels(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "nodes.yaml")
	content := `apiVersion: v1
kind: Node
metadata:
  name: bare
---
apiVersion: v1
kind: Node
metadata:
  name: empty
  labels:
    nvidia.com/gpu.present: "true"
    nvidia.com/cuda.driver.major: "550"
    feature.node.kubernetes.io/kernel-version.full: ""
    feature.node.kubernetes.io/system-os_release.ID: ubuntu
    feature.node.kubernetes.io/system-os_release.VERSION_ID: "22.04"
`
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := drvcheck(t, "", "tag", "empty", p)
	if code != 2 || out != "" || !strings.Contains(errOut, "feature.node.kubernetes.io/kernel-version.full is empty") {
		t.Fatalf("tag empty: code %d out %q err %q", code, out, errOut)
	}
	out, errOut, code = drvcheck(t, "", "tag", "bare", p)
	if code != 2 || out != "" || !strings.Contains(errOut, "is missing") {
		t.Fatalf("tag bare: code %d out %q err %q", code, out, errOut)
	}
	// A node without gpu.present is not audited; the GPU node with an
	// empty label is DRV002 at the label's line, and audit cannot pass.
	out, _, code = drvcheck(t, "", "check", p, "--matrix", labMatrix(t), "-o", "json")
	var got jsonOut
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if code != 1 || len(got.Findings) != 1 || got.Findings[0].Rule != "DRV002" || got.Findings[0].Object.Name != "empty" || got.Findings[0].Line != 13 {
		t.Fatalf("check: code %d findings %+v", code, got.Findings)
	}
	out, errOut, code = drvcheck(t, "", "audit", p, "--matrix", labMatrix(t))
	if code != 2 || out != "" || !strings.Contains(errOut, "GPU node empty has no driver image tag") {
		t.Fatalf("audit: code %d out %q err %q", code, out, errOut)
	}
}

func TestVersion(t *testing.T) {
	out, _, code := drvcheck(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, "drvcheck ") || !strings.Contains(out, "\nopa 1.") || !strings.Contains(out, "\ncommit ") {
		t.Fatalf("code %d out %q", code, out)
	}
}

func TestHelpPrintsUsageOnce(t *testing.T) {
	out, errOut, code := drvcheck(t, "", "check", "--help")
	if code != 0 || out != "" || strings.Count(errOut, "Usage: drvcheck check") != 1 || !strings.Contains(errOut, "--matrix") {
		t.Fatalf("code %d out %q err %q", code, out, errOut)
	}
}

// --profile writes a CPU profile of the whole command and a heap profile
// at its end, in pprof's format (gzip), for a user to send; a malformed
// spec is exit 2 naming it.
func TestProfileFlag(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	r := drv(t, "check", lab, "--profile", "cpu="+cpu+",mem="+mem, "--fail-on", "none")
	if r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	for _, f := range []string{cpu, mem} {
		data, err := os.ReadFile(f)
		if err != nil || len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
			t.Errorf("%s: not a pprof profile (%d bytes, %v)", f, len(data), err)
		}
	}
	if r := drv(t, "check", lab, "--profile", "disk=x"); r.code != exitError || !strings.Contains(r.stderr, `"disk" is neither cpu nor mem`) {
		t.Errorf("bad spec: exit %d %q", r.code, r.stderr)
	}
}

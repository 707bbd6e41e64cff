package integrations

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The inputs and outputs the issue asks for, and the two actions it names.
func TestActionDeclares(t *testing.T) {
	var a actionFile
	parseFile(t, "action.yml", &a)
	for _, in := range []string{"paths", "matrix", "registry", "policy", "fail-on", "format", "sarif-file", "upload-sarif", "summary", "kubeconfig"} {
		if _, ok := a.Inputs[in]; !ok {
			t.Errorf("action.yml lacks input %s", in)
		}
	}
	for _, out := range []string{"errors", "warnings"} {
		if v := a.Outputs[out].Value; v != "${{ steps.run.outputs."+out+" }}" {
			t.Errorf("output %s = %q", out, v)
		}
	}
	uses := map[string]bool{}
	for _, s := range a.Runs.Steps {
		if s.Uses != "" {
			uses[strings.Split(s.Uses, "@")[0]] = true
		}
		// v3 of upload-sarif is deprecated.
		if strings.HasPrefix(s.Uses, "github/codeql-action/upload-sarif@") && s.Uses != "github/codeql-action/upload-sarif@v4" {
			t.Errorf("step %q uses %s, want upload-sarif@v4", s.Name, s.Uses)
		}
		// Inputs reach shell scripts through env only, never pasted into
		// the script, so that no input can inject shell code.
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q expands an expression inside run:", s.Name)
		}
	}
	for _, u := range []string{"actions/setup-go", "github/codeql-action/upload-sarif"} {
		if !uses[u] {
			t.Errorf("action.yml does not use %s", u)
		}
	}
}

func TestActionOnLab(t *testing.T) {
	r := newRunner(t)
	sarif := filepath.Join(t.TempDir(), "reports", "drvcheck.sarif")
	out, outcome := r.action(map[string]string{
		"paths":      "testdata/lab",
		"matrix":     "testdata/lab/support-matrix.csv",
		"sarif-file": sarif,
	})
	log := r.log.String()
	if outcome != "failure" {
		t.Errorf("outcome %s, want failure (the lab has an error)\n%s", outcome, log)
	}
	sum := summaryOf(t, "check", "testdata/lab", "--matrix", "testdata/lab/support-matrix.csv")
	want := map[string]string{"errors": fmt.Sprint(sum.errors), "warnings": fmt.Sprint(sum.warnings), "suppressed": "0", "exit-code": "1", "sarif-file": sarif}
	for k, v := range want {
		if out[k] != v {
			t.Errorf("output %s = %q, want %q\n%s", k, out[k], v, log)
		}
	}
	if !strings.Contains(log, "::error file=testdata/lab/k8s/node3.yaml,line=15,title=DRV001 missing-driver-image::Node/lab-node-3:") {
		t.Errorf("no annotation in the log:\n%s", log)
	}
	summary, _ := os.ReadFile(r.summary)
	if !strings.Contains(string(summary), "| ❌ | DRV001 missing-driver-image | Node/lab-node-3 | `testdata/lab/k8s/node3.yaml:15` |") {
		t.Errorf("step summary:\n%s", summary)
	}
	var doc struct {
		Runs []struct{ Results []any }
	}
	data, err := os.ReadFile(sarif)
	if err != nil || json.Unmarshal(data, &doc) != nil || len(doc.Runs) != 1 || len(doc.Runs[0].Results) != sum.errors+sum.warnings {
		t.Errorf("sarif %s: %v\n%s", sarif, err, data)
	}
	// setup-go was asked for the action's own Go version; the HTML page,
	// which names the lab's missing image, is the one upload.
	if len(r.called) != 2 || !strings.HasPrefix(r.called[0].uses, "actions/setup-go@") ||
		r.called[0].with["go-version-file"] != filepath.Join(repo, "go.mod") {
		t.Errorf("called %+v", r.called)
	}
	if up := r.called[len(r.called)-1]; !strings.HasPrefix(up.uses, "actions/upload-artifact@") || up.with["name"] != "drvcheck-report" ||
		up.with["path"] != out["html-file"] || up.with["if-no-files-found"] != "error" {
		t.Errorf("HTML upload %+v, html-file %q", up, out["html-file"])
	}
	if page, err := os.ReadFile(out["html-file"]); err != nil || !strings.HasPrefix(string(page), "<!doctype html>") || !strings.Contains(string(page), "lab-node-3") {
		t.Errorf("html-file %s: %v", out["html-file"], err)
	}
	// The drvcheck on PATH is the one the action built, stamped with its ref.
	if len(r.path) == 0 {
		t.Fatal("the build step added nothing to GITHUB_PATH")
	}
	v, err := exec.Command(filepath.Join(r.path[0], "drvcheck"), "version").Output()
	if err != nil || !strings.HasPrefix(string(v), "drvcheck test-ref\n") {
		t.Errorf("built drvcheck version: %v %q", err, v)
	}
}

// fail-on none passes the job with the findings still counted; policy and
// upload-sarif reach drvcheck and code scanning.
func TestActionFailOnNoneUploadsSARIF(t *testing.T) {
	r := newRunner(t)
	out, outcome := r.action(map[string]string{
		"paths":        "testdata/lab",
		"matrix":       "testdata/lab/support-matrix.csv\n",
		"policy":       "testdata/policies/acme",
		"fail-on":      "none",
		"upload-sarif": "true",
		"summary":      "false",
		"sarif-file":   filepath.Join(t.TempDir(), "d.sarif"),
	})
	// ACME002 adds a warning for each of the 4 GPU nodes: none has a zone label.
	sum := summaryOf(t, "check", "testdata/lab", "--matrix", "testdata/lab/support-matrix.csv", "--policy", "testdata/policies/acme")
	if outcome != "success" || out["errors"] != fmt.Sprint(sum.errors) || out["warnings"] != fmt.Sprint(sum.warnings) || sum.warnings < 4 || out["exit-code"] != "0" {
		t.Errorf("outcome %s, outputs %v\n%s", outcome, out, r.log.String())
	}
	var upload *usesCall
	for i, c := range r.called {
		if strings.HasPrefix(c.uses, "github/codeql-action/upload-sarif@") {
			upload = &r.called[i]
		}
	}
	if upload == nil || upload.with["sarif_file"] != out["sarif-file"] || upload.with["category"] != "drvcheck" {
		t.Errorf("upload-sarif call = %+v", upload)
	}
	if data, _ := os.ReadFile(r.summary); len(data) != 0 {
		t.Errorf("summary written with summary: false:\n%s", data)
	}
}

// A run drvcheck cannot finish fails the step at once with its exit code 2
// and sets no counts.
func TestActionBadInputFails(t *testing.T) {
	r := newRunner(t)
	out, outcome := r.action(map[string]string{"paths": "testdata/no-such-folder", "sarif-file": filepath.Join(t.TempDir(), "x.sarif")})
	log := r.log.String()
	if outcome != "failure" || out["errors"] != "" || !strings.Contains(log, "drvcheck: testdata/no-such-folder: no such file or directory") ||
		!strings.Contains(log, "drvcheck could not run (exit 2)") {
		t.Errorf("outcome %s, outputs %v\n%s", outcome, out, log)
	}
}

// In scan mode, the action writes the kubeconfig to a private file, points
// KUBECONFIG at it and runs drvcheck scan; the cluster here is unreachable
// (a closed loopback port), so the run ends in exit 2, and the credentials
// never reach the log.
func TestActionScanMode(t *testing.T) {
	r := newRunner(t)
	kubeconfig := `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: s3cr3t-t0ken}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`
	_, outcome := r.action(map[string]string{"mode": "scan", "kubeconfig": kubeconfig, "paths": "does-not-matter", "sarif-file": filepath.Join(t.TempDir(), "s.sarif")})
	log := r.log.String()
	if outcome != "failure" || !strings.Contains(log, "drvcheck could not run (exit 2)") {
		t.Errorf("outcome %s\n%s", outcome, log)
	}
	if strings.Contains(log, "s3cr3t-t0ken") || strings.Contains(log, "does-not-matter") {
		t.Errorf("the log shows the kubeconfig or the ignored paths:\n%s", log)
	}
	path := filepath.Join(r.temp, "drvcheck-action", "kubeconfig")
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("kubeconfig file: %v %v", err, info)
	}
	if data, _ := os.ReadFile(path); strings.TrimSpace(string(data)) != strings.TrimSpace(kubeconfig) {
		t.Errorf("kubeconfig written as %q", data)
	}
}

type counts struct{ errors, warnings int }

// summaryOf runs the built drvcheck in the repository with -o json and
// returns its summary, so that the action's outputs are compared with the
// CLI's own answer rather than with numbers that change as rules are added.
func summaryOf(t *testing.T, args ...string) counts {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "drvcheck"), append(args, "-o", "json", "--fail-on", "none")...)
	cmd.Dir = repo
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("drvcheck %v: %v", args, err)
	}
	var doc struct {
		Summary struct{ Errors, Warnings int }
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Summary.Errors < 1 {
		t.Fatalf("drvcheck %v found no error; the lab always has one (DRV001)", args)
	}
	return counts{doc.Summary.Errors, doc.Summary.Warnings}
}

// On a pull request the action compares with the base branch by default:
// a branch that adds an unschedulable Pod fails on that Pod alone, and the
// lab's own findings are notices marked existing. Without the history for
// a merge base (a shallow checkout) it says so, and every finding counts.
func TestActionComparesAPullRequestWithItsBase(t *testing.T) {
	r := newRunner(t)
	w := r.workspace
	if err := os.RemoveAll(filepath.Join(w, ".git")); err != nil {
		t.Fatal(err)
	}
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	remote := filepath.Join(t.TempDir(), "origin.git")
	git(w, "init", "-q", "-b", "main")
	git(w, "add", ".")
	git(w, "commit", "-q", "-m", "base")
	git(w, "init", "-q", "--bare", remote)
	git(w, "remote", "add", "origin", remote)
	git(w, "push", "-q", "origin", "main")
	git(w, "checkout", "-q", "-b", "change")
	if err := os.WriteFile(filepath.Join(w, "testdata", "lab", "k8s", "stray.yaml"), []byte(`apiVersion: v1
kind: Pod
metadata: {name: stray, namespace: gpu-drv}
spec:
  nodeSelector: {kubernetes.io/hostname: lab-node-9}
  containers: [{name: c, image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	git(w, "add", ".")
	git(w, "commit", "-q", "-m", "stray")
	r.env = map[string]string{"GITHUB_BASE_REF": "main"}
	with := map[string]string{"paths": "testdata/lab", "matrix": "testdata/lab/support-matrix.csv", "sarif-file": filepath.Join(t.TempDir(), "d.sarif")}
	out, outcome := r.action(with)
	log := r.log.String()
	if outcome != "failure" || out["exit-code"] != "1" || strings.Count(log, "::error ") != 1 ||
		!strings.Contains(log, "::error file=testdata/lab/k8s/stray.yaml") || !strings.Contains(log, "title=DRV001 missing-driver-image (existing)") {
		t.Fatalf("outcome %s, outputs %v\n%s", outcome, out, log)
	}
	// The change without the stray Pod passes.
	git(w, "rm", "-q", filepath.Join("testdata", "lab", "k8s", "stray.yaml"))
	git(w, "commit", "-q", "-m", "no stray")
	r.log.Reset()
	if out, outcome := r.action(with); outcome != "success" || out["exit-code"] != "0" {
		t.Errorf("without the stray Pod: outcome %s, outputs %v\n%s", outcome, out, r.log.String())
	}
	// A base branch that cannot be fetched: a notice, and every finding
	// counts.
	r.env["GITHUB_BASE_REF"] = "no-such-branch"
	r.log.Reset()
	if out, outcome := r.action(with); outcome != "failure" || out["exit-code"] != "1" || !strings.Contains(r.log.String(), "no merge base with origin/no-such-branch") {
		t.Errorf("no merge base: outcome %s, outputs %v\n%s", outcome, out, r.log.String())
	}
}

// actionOnPullRequest runs the action on a pull request of the workspace:
// base writes the base branch's files, change the pull request's; it
// returns the action's outputs, outcome and the step summary.
func actionOnPullRequest(t *testing.T, base, change func(w string), with map[string]string) (map[string]string, string, string, *ghRunner) {
	t.Helper()
	r := newRunner(t)
	w := r.workspace
	if err := os.RemoveAll(filepath.Join(w, ".git")); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", w, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	base(w)
	remote := filepath.Join(t.TempDir(), "origin.git")
	git("init", "-q", "-b", "main")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	git("init", "-q", "--bare", remote)
	git("remote", "add", "origin", remote)
	git("push", "-q", "origin", "main")
	git("checkout", "-q", "-b", "change")
	change(w)
	git("commit", "-q", "-am", "the change")
	r.env = map[string]string{"GITHUB_BASE_REF": "main"}
	with["sarif-file"] = filepath.Join(t.TempDir(), "d.sarif")
	out, outcome := r.action(with)
	summary, err := os.ReadFile(r.summary)
	if err != nil {
		t.Fatal(err)
	}
	return out, outcome, string(summary), r
}

// copyChange copies testdata/operator/change/from to w/fleet/to.
func copyChange(t *testing.T, w, from, to string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, "testdata", "operator", "change", from))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(w, "fleet"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w, "fleet", to), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A pull request that changes only a label of the ClusterPolicy: the step
// summary starts with drvcheck diff's verdict, restart-only, then draws
// the rollout as a Mermaid gantt, and the check itself passes.
func TestActionSummaryStartsWithTheOperatorChange(t *testing.T) {
	base := func(w string) {
		copyChange(t, w, "base.yaml", "clusterpolicy.yaml")
		copyChange(t, w, "nodes.yaml", "nodes.yaml")
		copyChange(t, w, "images.csv", "images.csv")
	}
	change := func(w string) { copyChange(t, w, "labels.yaml", "clusterpolicy.yaml") }
	out, outcome, summary, r := actionOnPullRequest(t, base, change, map[string]string{"paths": "fleet", "matrix": "fleet/images.csv", "args": "--operator-version v26.7.0"})
	if outcome != "success" || out["exit-code"] != "0" ||
		!strings.HasPrefix(summary, "<b>Operator change the merge base ") || !strings.Contains(strings.SplitN(summary, "\n", 2)[0], "restart-only: nodes are cordoned") ||
		!strings.Contains(summary, "```mermaid\ngantt\n") {
		t.Errorf("outcome %s, outputs %v\nsummary:\n%s\nlog:\n%s", outcome, out, summary, r.log.String())
	}
}

// The lab under the GPU Operator (the chart v26.7.0's ClusterPolicy with
// precompiled 550, what its nodes run), and a pull request that moves it
// to the 535 branch: the summary draws the lab's rollout as a gantt, a
// bar per GPU node, and the text beneath says why it halts (no
// precompiled 535 image for lab-node-0's kernel in the lab's matrix).
func TestActionSummaryOnTheLabDrawsTheRollout(t *testing.T) {
	policy := func(w, version string) {
		data, err := os.ReadFile(filepath.Join(repo, "testdata", "operator", "change", "base.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		cp := strings.NewReplacer("usePrecompiled: false", "usePrecompiled: true", `version: "595.91.07"`, `version: "`+version+`"`).Replace(string(data))
		if err := os.WriteFile(filepath.Join(w, "testdata", "lab", "k8s", "clusterpolicy.yaml"), []byte(cp), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, outcome, summary, r := actionOnPullRequest(t, func(w string) { policy(w, "550") }, func(w string) { policy(w, "535") },
		map[string]string{"paths": "testdata/lab", "matrix": "testdata/lab/support-matrix.csv", "fail-on": "none"})
	gantt, _, _ := strings.Cut(summary, "```\n\n")
	if outcome != "success" || !strings.Contains(summary, "full rollout") || !strings.Contains(gantt, "```mermaid\ngantt\n") ||
		strings.Count(gantt, "    lab-node-") != 4 || !strings.Contains(summary, "no precompiled driver image nvcr.io/nvidia/driver:535-5.15.0-119-generic-ubuntu22.04") {
		t.Errorf("outcome %s, outputs %v\nsummary:\n%s\nlog:\n%s", outcome, out, summary, r.log.String())
	}
}

// An invalid mode is named in the step's ::error line as a command's data
// is written: a line break in the input must not start a workflow command
// of the input's choosing.
func TestActionEscapesAnInvalidMode(t *testing.T) {
	r := newRunner(t)
	_, outcome := r.action(map[string]string{"mode": "nope\n::warning title=pwned::owned\r", "sarif-file": filepath.Join(t.TempDir(), "x.sarif")})
	log := r.log.String()
	if outcome != "failure" || !strings.Contains(log, `::error title=drvcheck::mode "nope%0A::warning title=pwned::owned%0D": want check, scan or merge`) {
		t.Errorf("outcome %s\n%s", outcome, log)
	}
	for _, line := range strings.Split(log, "\n") {
		if strings.HasPrefix(line, "::warning") {
			t.Errorf("the input wrote a workflow command: %q", line)
		}
	}
}

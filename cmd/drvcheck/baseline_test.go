package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// strayPod is a Pod no lab node can run: the change a pull request brings.
const strayPod = `apiVersion: v1
kind: Pod
metadata: {name: stray, namespace: gpu-drv}
spec:
  nodeSelector: {kubernetes.io/hostname: lab-node-9}
  containers: [{name: c, image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04}]
`

// The pull-request loop on the lab: the lab's own findings (DRV001 for
// lab-node-3 among them) are the baseline, and a change that adds a Pod no
// node can run fails on that Pod alone, with the others shown as existing
// and not failing in text, JSON, SARIF, the GitHub annotations and the
// Action's summary (markdown).
func TestBaselineFailsOnlyForWhatAChangeBrings(t *testing.T) {
	dir, _ := labCopy(t)
	base := filepath.Join(t.TempDir(), "base.json")
	if r := drv(t, "check", dir, "--matrix", matrix, "-o", "json", "--report", "json="+base); r.code != 1 {
		t.Fatalf("baseline run: exit %d %s", r.code, r.stderr)
	}
	// Unchanged: every finding existing, exit 0, even at --fail-on warning
	// (the lab has a warning).
	if r := drv(t, "check", dir, "--matrix", matrix, "--baseline", base, "--fail-on", "warning"); r.code != 0 || !strings.Contains(r.stdout, "0 new, ") {
		t.Errorf("unchanged: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	writeFile(t, filepath.Join(dir, "k8s", "stray.yaml"), strayPod)
	args := []string{"check", dir, "--matrix", matrix, "--baseline", base}
	r := drv(t, append(args, "-o", "json")...)
	var rep jsonReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 1 {
		t.Fatalf("exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	var fresh []string
	drv001 := ""
	for _, f := range rep.Findings {
		if f.Baseline == "new" {
			fresh = append(fresh, f.Rule+" "+f.Object.String())
		}
		if f.Rule == "DRV001" && f.Node == "lab-node-3" {
			drv001 = f.Baseline
		}
	}
	if strings.Join(fresh, ", ") != "DRV010 Pod/gpu-drv/stray" || drv001 != "existing" {
		t.Fatalf("new %v, DRV001 lab-node-3 %q", fresh, drv001)
	}
	text := drv(t, args...).stdout
	if !strings.Contains(text, "DRV001 missing-driver-image  Node/lab-node-3  (existing: not failing)") ||
		!strings.Contains(text, "(1 new, ") || strings.Contains(text, "Pod/gpu-drv/stray  (existing") {
		t.Errorf("text:\n%s", text)
	}
	var sarif struct {
		Runs []struct {
			Results []struct {
				RuleID        string `json:"ruleId"`
				BaselineState string `json:"baselineState"`
				Message       struct{ Text string }
			}
		}
	}
	if err := json.Unmarshal([]byte(drv(t, append(args, "-o", "sarif")...).stdout), &sarif); err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, res := range sarif.Runs[0].Results {
		states[res.RuleID+" "+strings.SplitN(res.Message.Text, ":", 2)[0]] = res.BaselineState
	}
	if states["DRV010 Pod/gpu-drv/stray"] != "new" || states["DRV001 Node/lab-node-3"] != "unchanged" {
		t.Errorf("SARIF baselineState: %v", states)
	}
	gh := drv(t, append(args, "-o", "github")...).stdout
	if !strings.Contains(gh, "::error file=") || !strings.Contains(gh, "title=DRV001 missing-driver-image (existing)::Node/lab-node-3") ||
		strings.Count(gh, "::error ") != 1 {
		t.Errorf("annotations:\n%s", gh)
	}
	md := drv(t, append(args, "-o", "markdown")...).stdout
	if !strings.Contains(md, "**❌ 1 new error (1 new, ") || !strings.Contains(md, "DRV001 missing-driver-image  (existing: not failing)") {
		t.Errorf("summary:\n%s", md)
	}
}

// A baseline that is not a report, or that a repository's config names,
// is refused: a pull request could otherwise mark its own findings as
// existing.
func TestBaselineRefuses(t *testing.T) {
	dir := t.TempDir()
	notReport := filepath.Join(dir, "x.json")
	writeFile(t, notReport, `{"nodes": []}`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", lab, "--baseline", notReport}, "--baseline " + notReport + ": not a drvcheck -o json report"},
		{[]string{"check", lab, "--baseline", filepath.Join(dir, "absent.json")}, "no such file or directory"},
	} {
		if r := drv(t, c.args...); r.code != exitError || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A committed baseline that a pull request turned into a link out of
	// the repository, or into a named pipe, is refused, without a hang.
	if err := os.Symlink("/etc/passwd", filepath.Join(repo, "link.json")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(repo, "pipe.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(repo, "k8s.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n")
	for name, want := range map[string]string{"link.json": "a symbolic link outside the repository", "pipe.json": "not a regular file"} {
		r := drv(t, "check", filepath.Join(repo, "k8s.yaml"), "--baseline", filepath.Join(repo, name))
		if r.code != exitError || !strings.Contains(r.stderr, want) || strings.Contains(r.stdout+r.stderr, "root:") {
			t.Errorf("%s: exit %d %q, want 2 and %q", name, r.code, r.stderr, want)
		}
	}
	// Over standard input no path names the repository: the working
	// folder's does.
	t.Chdir(repo)
	if r := drvStdin(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n", "check", "-", "--baseline", "pipe.json"); r.code != exitError || !strings.Contains(r.stderr, "not a regular file") {
		t.Errorf("stdin with a pipe for a baseline: exit %d %q", r.code, r.stderr)
	}
	writeFile(t, filepath.Join(repo, "base.json"), `{"findings": []}`)
	writeFile(t, filepath.Join(repo, ".drvcheck.yaml"), "baseline: base.json\n")
	if r := drv(t, "check", "k8s.yaml", "--config", filepath.Join(repo, ".drvcheck.yaml")); r.code != exitError || !strings.Contains(r.stderr, "baseline: only the command line may set it") {
		t.Errorf("a repository's config set the baseline: exit %d %q", r.code, r.stderr)
	}
}

// gitRun runs git in dir with a fixed identity and no user config.
func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// --diff-base checks the merge base too, from git's objects: a branch that
// adds the stray Pod fails on it alone; the lab's own findings, there
// before the branch, are existing. A file the merge base lacks is simply
// not in its run.
func TestDiffBaseFailsOnlyForTheBranch(t *testing.T) {
	dir, _ := labCopy(t)
	matrix, _ := filepath.Abs(matrix)
	lab, _ := filepath.Abs(lab)
	gitRun(t, dir, "init", "-q", "-b", "main")
	gitRun(t, dir, "add", ".")
	gitRun(t, dir, "commit", "-q", "-m", "lab")
	gitRun(t, dir, "checkout", "-q", "-b", "change")
	t.Chdir(dir) // the repository is the working folder's
	if r := drv(t, "check", ".", "--matrix", matrix, "--diff-base", "main", "--fail-on", "warning"); r.code != 0 || !strings.Contains(r.stdout, "(0 new, ") {
		t.Fatalf("no change: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	writeFile(t, filepath.Join(dir, "k8s", "stray.yaml"), strayPod)
	gitRun(t, dir, "add", ".")
	gitRun(t, dir, "commit", "-q", "-m", "stray")
	for _, target := range [][]string{{dir}, {"k8s"}, {"k8s/stray.yaml", "k8s/nodes.yaml", "k8s/node3.yaml"}} {
		r := drv(t, append([]string{"check", "--matrix", matrix, "--diff-base", "main", "-o", "json"}, target...)...)
		var rep jsonReport
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 1 {
			t.Fatalf("%s: exit %d %v\n%s%s", target, r.code, err, r.stdout, r.stderr)
		}
		fresh := 0
		for _, f := range rep.Findings {
			if f.Baseline == "new" {
				fresh++
				if f.Rule != "DRV010" || f.Object.Name != "stray" {
					t.Errorf("%s: new %s %s", target, f.Rule, f.Object)
				}
			}
		}
		if fresh != 1 {
			t.Errorf("%s: %d new findings, want 1", target, fresh)
		}
	}
	// A repository nested in the work tree (a submodule a pull request may
	// add) has a history of its own: refused, as is a path out of the tree.
	gitRun(t, dir, "init", "-q", "-b", "main", "vendor/sub")
	writeFile(t, filepath.Join(dir, "vendor", "sub", "pod.yaml"), strayPod)
	if err := os.Symlink(lab, filepath.Join(dir, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	cases := []struct {
		dir  string
		args []string
		want string
	}{
		{dir, []string{"check", ".", "--diff-base", "nope"}, "--diff-base nope: no merge base of nope and HEAD"},
		{dir, []string{"check", ".", lab, "--diff-base", "main"}, "leads out of the git work tree"},
		{dir, []string{"check", "elsewhere/k8s", "--diff-base", "main"}, "leads out of the git work tree"},
		{dir, []string{"check", "vendor/sub/pod.yaml", "--diff-base", "main"}, "is in a repository of its own"},
		{dir, []string{"check", ".", "--diff-base", "main", "--baseline", "x.json"}, "--baseline and --diff-base both"},
		{outside, []string{"check", dir, "--diff-base", "main"}, "is not in a git work tree (run drvcheck from inside the repository)"},
	}
	for _, c := range cases {
		t.Chdir(c.dir)
		if r := drv(t, c.args...); r.code != exitError || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("%v: exit %d %q, want 2 and one line with %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

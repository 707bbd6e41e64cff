package integrations

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/testcluster"
)

func readWorkflow(t *testing.T, name string) workflow {
	t.Helper()
	var w workflow
	parseFile(t, ".github/workflows/"+name, &w)
	return w
}

// triggers lists the events under on:.
func triggers(t *testing.T, w workflow) map[string]any {
	t.Helper()
	var on map[string]any
	if err := w.On.Decode(&on); err != nil {
		t.Fatalf("on: %v", err)
	}
	return on
}

func runs(steps []step) string {
	var b strings.Builder
	for _, s := range steps {
		b.WriteString(s.Run + "\n")
	}
	return b.String()
}

func TestWorkflowCI(t *testing.T) {
	w := readWorkflow(t, "ci.yml")
	on := triggers(t, w)
	if _, ok := on["pull_request"]; !ok {
		t.Errorf("ci.yml does not run on pull requests: %v", on)
	}
	steps := w.Jobs["test"].Steps
	for _, cmd := range []string{"make build", "make lint", "make test", "bin/drvcheck verify"} {
		if !strings.Contains(runs(steps), cmd) {
			t.Errorf("ci.yml does not run %q", cmd)
		}
	}
	if !slices.ContainsFunc(steps, func(s step) bool {
		return strings.HasPrefix(s.Uses, "actions/setup-go@") && s.With["go-version-file"] == "go.mod"
	}) {
		t.Errorf("ci.yml does not set up Go from go.mod")
	}
}

// action-test.yml runs the action on the lab and asserts its outputs: its
// jobs, run here step by step with the real action, must pass, so the
// assertions and the action agree.
func TestWorkflowActionTest(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Fatal("jq is not installed: action-test.yml asserts with it, as GitHub's runners have it; apt-get install jq (bash .ci/run does)")
	}
	w := readWorkflow(t, "action-test.yml")
	if len(w.Jobs) < 2 {
		t.Fatalf("jobs = %v", w.Jobs)
	}
	for name, job := range w.Jobs {
		if !slices.ContainsFunc(job.Steps, func(s step) bool { return s.Uses == "./" }) {
			t.Errorf("job %s does not run the action", name)
		}
		if !strings.Contains(runs(job.Steps), `test "$ERRORS" = `) {
			t.Errorf("job %s asserts no errors output", name)
		}
	}
	// The jobs in one run, as GitHub runs them: an artifact name taken
	// twice would fail the second upload.
	r := newRunner(t)
	for name, result := range r.run(w) {
		if result != "success" {
			t.Errorf("job %s: %s\n%s", name, result, r.log.String())
		}
	}
	if strings.Contains(r.log.String(), "already exists in this run") {
		t.Errorf("an artifact name taken twice:\n%s", r.log.String())
	}
}

func TestWorkflowNightlyScan(t *testing.T) {
	w := readWorkflow(t, "nightly-scan.yml")
	on := triggers(t, w)
	sched, _ := on["schedule"].([]any)
	if len(sched) != 1 || len(strings.Fields(sched[0].(map[string]any)["cron"].(string))) != 5 {
		t.Errorf("schedule = %v, want one five-field cron", on["schedule"])
	}
	steps := w.Jobs["scan"].Steps
	// Copyable: the published action, in scan mode, configured by the
	// workflow's env rather than by paths of this repository.
	i := slices.IndexFunc(steps, func(s step) bool { return strings.HasPrefix(s.Uses, publishedAction) })
	if i < 0 || steps[i].With["kubeconfig"] != "${{ secrets.DRVCHECK_KUBECONFIG }}" || steps[i].With["mode"] != "scan" || !steps[i].ContinueOnError {
		t.Fatalf("no drvcheck scan step of %s with the kubeconfig secret that lets the reports be kept", publishedAction)
	}
	if data, err := os.ReadFile(filepath.Join(repo, ".github", "workflows", "nightly-scan.yml")); err != nil || strings.Contains(string(data), "testdata/") {
		t.Errorf("nightly-scan.yml names this repository's test data: %v", err)
	}

	// Without the secret, the job stops at once with a message, rather than
	// silently checking the repository instead of the cluster.
	r := newRunner(t)
	if r.job(steps[:2]) || !strings.Contains(r.log.String(), "set the repository secret DRVCHECK_KUBECONFIG") {
		t.Errorf("missing secret not reported:\n%s", r.log.String())
	}
}

// The whole nightly job against a real control plane holding the lab's
// nodes: the scan finds lab-node-3's missing image, the drift issue gets
// the summary, the nodes snapshot is committed and kept, and the job fails.
// gh is a script that records its arguments: GitHub's API is not here.
func TestWorkflowNightlyScanRuns(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	ctx := context.Background()
	for _, f := range []string{"nodes.yaml", "node3.yaml"} {
		if _, stderr, err := c.Kubectl(ctx, "apply", "-f", filepath.Join(repo, "testdata", "lab", "k8s", f)); err != nil {
			t.Fatalf("kubectl apply %s: %v %s", f, err, stderr)
		}
	}
	w := readWorkflow(t, "nightly-scan.yml")
	r := newRunner(t)
	kubeconfig, err := os.ReadFile(c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	r.secrets["DRVCHECK_KUBECONFIG"] = string(kubeconfig)
	r.env = maps.Clone(w.Env)
	r.env["DRVCHECK_REGISTRY"], r.env["DRVCHECK_MATRIX"] = "", "testdata/lab/support-matrix.csv"
	r.env["DRVCHECK_COMMIT_SNAPSHOT"] = "true"
	remote := gitWorkspace(t, r.workspace)
	ghLog := filepath.Join(t.TempDir(), "gh.log")
	shim := t.TempDir()
	script := "#!/bin/sh\necho \"$*\" >> " + ghLog + "\nfor a; do case $prev in --body-file) cat \"$a\" >> " + ghLog + ";; esac; prev=$a; done\n"
	if err := os.WriteFile(filepath.Join(shim, "gh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r.path = append(r.path, shim)

	if r.job(w.Jobs["scan"].Steps) {
		t.Errorf("the job passed; lab-node-3 lacks its image\n%s", r.log.String())
	}
	gh, _ := os.ReadFile(ghLog)
	if !strings.Contains(string(gh), `issue create --title drvcheck nightly scan: the cluster drifted`) || !strings.Contains(string(gh), "DRV001") {
		t.Errorf("gh calls:\n%s\n%s", gh, r.log.String())
	}
	committed, err := exec.Command("git", "--git-dir", remote, "show", "HEAD:.drvcheck/nodes.yaml").Output()
	if err != nil || !strings.Contains(string(committed), "name: lab-node-3") {
		t.Errorf("snapshot not pushed: %v\n%s", err, r.log.String())
	}
	kept := slices.ContainsFunc(r.called, func(u usesCall) bool {
		return strings.HasPrefix(u.uses, "actions/upload-artifact@") && u.with["name"] == "drvcheck-nodes" && u.with["path"] == ".drvcheck/nodes.yaml"
	})
	if !kept || strings.Contains(r.log.String(), "s3cr") {
		t.Errorf("artifact calls %v", r.called)
	}
}

// The pull-request side of the pair: the workspace's workloads against the
// snapshot the nightly job committed, whose lines the annotations name.
func TestWorkflowPRCheckReadsSnapshot(t *testing.T) {
	var w workflow
	parseFile(t, "docs/workflows/pr-check.yml", &w)
	r := newRunner(t)
	k8s := filepath.Join(r.workspace, "testdata", "lab", "k8s")
	snap := filepath.Join(r.workspace, ".drvcheck", "nodes.yaml")
	if err := os.MkdirAll(filepath.Dir(snap), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "drvcheck"), "snapshot", "nodes", k8s, "--file", snap)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("snapshot: %v %s", err, out)
	}
	for _, f := range []string{"nodes.yaml", "node3.yaml"} {
		if err := os.Remove(filepath.Join(k8s, f)); err != nil {
			t.Fatal(err)
		}
	}
	r.env = maps.Clone(w.Env)
	r.env["DRVCHECK_REGISTRY"], r.env["DRVCHECK_MATRIX"] = "", "testdata/lab/support-matrix.csv"
	if r.job(w.Jobs["drvcheck"].Steps) || !strings.Contains(r.log.String(), "::error file=.drvcheck/nodes.yaml,line=65,title=DRV001") {
		t.Errorf("pr-check:\n%s", r.log.String())
	}
}

// gitWorkspace makes dir a git repository with one commit, pushed to a
// bare repository it returns.
func gitWorkspace(t *testing.T, dir string) string {
	t.Helper()
	remote := filepath.Join(t.TempDir(), "remote.git")
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
		t.Fatal(err)
	}
	git("init", "-q", "--bare", remote)
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "lab")
	git("remote", "add", "origin", remote)
	git("push", "-q", "-u", "origin", "HEAD")
	return remote
}

// make release for this machine's platform, served as GitHub serves a
// release, installs through hack/install.sh: the checksums it writes are
// the ones the installer checks, and the binary reports the tag.
func TestReleaseInstalls(t *testing.T) {
	served := t.TempDir()
	out := filepath.Join(served, "v0.0.1")
	cmd := exec.Command("make", "release", "PLATFORMS=linux/"+runtime.GOARCH, "RELEASE_DIR="+out, "VERSION=v0.0.1")
	cmd.Dir = repo
	if log, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make release: %v\n%s", err, log)
	}
	sbom, err := os.ReadFile(filepath.Join(out, "sbom.txt"))
	if err != nil || !strings.Contains(string(sbom), "dep\tgithub.com/open-policy-agent/opa\t") {
		t.Errorf("sbom.txt lacks the module graph: %v", err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(served)))
	defer srv.Close()
	dir := t.TempDir()
	install := exec.Command("bash", filepath.Join(repo, "hack", "install.sh"), "v0.0.1", dir)
	install.Env = append(os.Environ(), "DRVCHECK_RELEASE_URL="+srv.URL, "PATH="+noGoPath)
	if log, err := install.CombinedOutput(); err != nil {
		t.Fatalf("install.sh: %v\n%s", err, log)
	}
	v, err := exec.Command(filepath.Join(dir, "drvcheck"), "--version").Output()
	if err != nil || !strings.HasPrefix(string(v), "drvcheck v0.0.1\n") {
		t.Errorf("installed drvcheck: %v %q", err, v)
	}
	// A version that was never released is exit 3: the Action builds then.
	missing := exec.Command("bash", filepath.Join(repo, "hack", "install.sh"), "v0.0.2", dir)
	missing.Env = install.Env
	if err := missing.Run(); err == nil || missing.ProcessState.ExitCode() != 3 {
		t.Errorf("install.sh of an unreleased tag: %v", err)
	}
}

func TestWorkflowRelease(t *testing.T) {
	w := readWorkflow(t, "release.yml")
	push, _ := triggers(t, w)["push"].(map[string]any)
	if fmt.Sprint(push["tags"]) != "[v*.*.*]" || w.Permissions["contents"] != "write" || w.Permissions["packages"] != "write" {
		t.Errorf("triggers %v, permissions %v", push, w.Permissions)
	}
	all := runs(w.Jobs["release"].Steps)
	for _, want := range []string{"bash .ci/run", `make release VERSION="$TAG"`, "gh release create \"$TAG\" bin/release/*", `bash hack/float-tags.sh "$TAG"`, "make image-push"} {
		if !strings.Contains(all, want) {
			t.Errorf("release.yml does not run %q", want)
		}
	}
}

// hack/float-tags.sh moves v9 and v9.N forward only, and never for a
// pre-release: with a stub gh that says v9 already points at v9.9.7 and
// v9.8 has no release yet, v9.8.3 moves v9.8 alone.
func TestFloatTagsMoveForwardOnly(t *testing.T) {
	bin := t.TempDir()
	gh := `#!/bin/sh
case "$1 $2 $3" in
"release download v9") echo v9.9.7 ;;
"release download "*) exit 1 ;;
"release view v9") exit 0 ;;
"release view "*) exit 1 ;;
esac
`
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(gh), 0o755); err != nil {
		t.Fatal(err)
	}
	float := func(tag string) string {
		t.Helper()
		cmd := exec.Command("bash", filepath.Join(repo, "hack", "float-tags.sh"), tag)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "FLOAT_DRY_RUN=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("float-tags.sh %s: %v\n%s", tag, err, out)
		}
		return string(out)
	}
	out := float("v9.8.3")
	for _, want := range []string{"v9 stays at v9.9.7, newer than v9.8.3", "git tag -f v9.8 v9.8.3", "git push -f origin refs/tags/v9.8", "gh release create v9.8 --prerelease", "gh release upload v9.8 "} {
		if !strings.Contains(out, want) {
			t.Errorf("v9.8.3: no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "git tag -f v9 ") {
		t.Errorf("v9 moved back:\n%s", out)
	}
	if out := float("v9.10.0"); !strings.Contains(out, "git tag -f v9 v9.10.0") || strings.Contains(out, "gh release create v9 ") {
		t.Errorf("v9.10.0 (sort -V, not text order):\n%s", out)
	}
	if out := float("v9.11.0-rc.1"); strings.Contains(out, "git tag") {
		t.Errorf("a pre-release moved a tag:\n%s", out)
	}
}

// The fleet workflow as GitHub runs it: a scan job per cluster of its
// matrix, then the merge. eu-1 holds the lab's nodes (535 and 550), us-1
// the same nodes moved to 570, both env prod; staging-1's kubeconfig
// reaches no API server. The two scanned are merged into one fleet
// report (their skew named, the HTML page kept), staging-1 fails its job
// and the run, and no artifact name is taken twice.
func TestWorkflowFleetScanRuns(t *testing.T) {
	eu := testcluster.Start(t, testcluster.Options{})
	us := testcluster.Start(t, testcluster.Options{})
	ctx := context.Background()
	lab := filepath.Join(repo, "testdata", "lab", "k8s")
	for _, f := range []string{"nodes.yaml", "node3.yaml"} {
		if _, stderr, err := eu.Kubectl(ctx, "apply", "-f", filepath.Join(lab, f)); err != nil {
			t.Fatalf("kubectl apply %s: %v %s", f, err, stderr)
		}
	}
	nodes, err := os.ReadFile(filepath.Join(lab, "nodes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(t.TempDir(), "nodes.yaml")
	if err := os.WriteFile(moved, []byte(strings.NewReplacer(`cuda.driver.major: "550"`, `cuda.driver.major: "570"`, `cuda.driver.major: "535"`, `cuda.driver.major: "570"`).Replace(string(nodes))), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := us.Kubectl(ctx, "apply", "-f", moved); err != nil {
		t.Fatalf("kubectl apply: %v %s", err, stderr)
	}
	w := readWorkflow(t, "fleet-scan.yml")
	r := newRunner(t)
	for secret, kc := range map[string]string{"DRVCHECK_KUBECONFIG_EU_1": eu.Kubeconfig, "DRVCHECK_KUBECONFIG_US_1": us.Kubeconfig} {
		data, err := os.ReadFile(kc)
		if err != nil {
			t.Fatal(err)
		}
		r.secrets[secret] = string(data)
	}
	r.secrets["DRVCHECK_KUBECONFIG_STAGING_1"] = "apiVersion: v1\nkind: Config\nclusters: [{name: s, cluster: {server: \"https://127.0.0.1:1\"}}]\nusers: [{name: s, user: {token: none}}]\ncontexts: [{name: s, context: {cluster: s, user: s}}]\ncurrent-context: s\n"
	r.env = maps.Clone(w.Env)
	r.env["DRVCHECK_REGISTRY"], r.env["DRVCHECK_MATRIX"] = "", "testdata/lab/support-matrix.csv"

	results := r.run(w)
	log := r.log.String()
	if results["scan"] != "failure" || results["merge"] != "failure" || !strings.Contains(log, "::error title=drvcheck::a cluster could not be scanned") ||
		!strings.Contains(log, "https://127.0.0.1:1 unreachable") {
		t.Fatalf("jobs %v\n%s", results, log)
	}
	names := map[string]int{}
	for _, c := range r.called {
		if strings.HasPrefix(c.uses, "actions/upload-artifact@") {
			names[c.with["name"]]++
		}
	}
	for _, want := range []string{"drvcheck-result-eu-1", "drvcheck-result-us-1", "drvcheck-report-eu-1", "drvcheck-report-us-1", "drvcheck-fleet-report"} {
		if names[want] != 1 {
			t.Errorf("artifact %s uploaded %d times (%v)", want, names[want], names)
		}
	}
	if names["drvcheck-result-staging-1"] != 0 {
		t.Errorf("staging-1, never scanned, kept a result")
	}
	page, err := os.ReadFile(filepath.Join(r.artifacts, "drvcheck-fleet-report", "report.html"))
	summary, _ := os.ReadFile(r.summary)
	skew := "the clusters of fleet env=prod run 2 driver branches: 535+550 (eu-1); 570 (us-1)"
	inPage := strings.ReplaceAll(skew, "+", "&#43;") // as html/template writes it
	if err != nil || !strings.Contains(string(page), inPage) || !strings.Contains(string(summary), skew) || !strings.Contains(string(summary), "lab-node-3") {
		t.Errorf("fleet page: %v\nsummary:\n%s\n%s", err, summary, log)
	}
}

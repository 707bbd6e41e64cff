package integrations

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// noGoPath is a runner image's PATH without Go: bash, curl and coreutils.
const noGoPath = "/usr/bin:/bin"

// release serves a release as GitHub does (RELEASE/TAG/ASSET) from a
// local file server: drvcheck for this machine's platform, built with
// version tag, and checksums.txt, whose line for it is sum (the real sum
// when empty).
func release(t *testing.T, tag, sum string) string {
	t.Helper()
	root := t.TempDir()
	releaseFiles(t, root, tag, sum)
	return serve(t, root)
}

// releaseFiles writes release tag under root, as release serves it.
func releaseFiles(t *testing.T, root, tag, sum string) {
	t.Helper()
	dir := filepath.Join(root, tag)
	asset := fmt.Sprintf("drvcheck-%s-%s", runtime.GOOS, runtime.GOARCH)
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version="+tag, "-o", filepath.Join(dir, asset), "./cmd/drvcheck")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, asset))
	if err != nil {
		t.Fatal(err)
	}
	if sum == "" {
		sum = fmt.Sprintf("%x", sha256.Sum256(data))
	}
	checksums := fmt.Sprintf("%064x  drvcheck-other-arch\n%s  %s\n", 0, sum, asset)
	if err := os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(checksums), 0o644); err != nil {
		t.Fatal(err)
	}
}

// serve serves root as GitHub serves releases.
func serve(t *testing.T, root string) string {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir(root)))
	t.Cleanup(srv.Close)
	return srv.URL
}

// float writes the release of a floating tag (v9, v9.9): its version.txt
// names the release it stands for, as hack/float-tags.sh publishes it.
func float(t *testing.T, root, name, points string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, name, "version.txt"), []byte(points+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// uses: drvcheck/drvcheck@v9 (and @v9.9) on a runner without Go: the
// floating tag resolves to the newest release under it, whose binary is
// downloaded and verified. A pointer to a release outside the floating
// tag is refused, with no build to fall back on.
func TestActionDownloadsFloatingRelease(t *testing.T) {
	root := t.TempDir()
	releaseFiles(t, root, "v9.9.6", "")
	float(t, root, "v9", "v9.9.6")
	float(t, root, "v9.9", "v9.9.6")
	float(t, root, "v8", "v9.9.6")
	url := serve(t, root)
	for _, ref := range []string{"v9", "v9.9"} {
		r := newRunner(t)
		r.actionRef, r.basePath = ref, noGoPath
		out, outcome := r.action(map[string]string{
			"paths": "testdata/lab", "matrix": "testdata/lab/support-matrix.csv", "release-url": url,
			"sarif-file": filepath.Join(t.TempDir(), "f.sarif"),
		})
		log := r.log.String()
		if outcome != "failure" || out["exit-code"] != "1" || calledSetupGo(r) || !strings.Contains(log, ref+" is v9.9.6") {
			t.Fatalf("@%s: outcome %s, outputs %v, called %v\n%s", ref, outcome, out, r.called, log)
		}
		v, err := exec.Command(filepath.Join(r.path[0], "drvcheck"), "version").Output()
		if err != nil || !strings.HasPrefix(string(v), "drvcheck v9.9.6\n") {
			t.Errorf("@%s: drvcheck on PATH: %v %q", ref, err, v)
		}
	}
	r := newRunner(t)
	r.actionRef, r.basePath = "v8", noGoPath
	_, outcome := r.action(map[string]string{"paths": "testdata/lab", "release-url": url, "sarif-file": filepath.Join(t.TempDir(), "g.sarif")})
	if log := r.log.String(); outcome != "failure" || !strings.Contains(log, "not a release under v8; not installed") || calledSetupGo(r) {
		t.Errorf("@v8 pointing at v9.9.6: outcome %s\n%s", outcome, log)
	}
}

func calledSetupGo(r *ghRunner) bool {
	return slices.ContainsFunc(r.called, func(c usesCall) bool { return strings.HasPrefix(c.uses, "actions/setup-go@") })
}

// On a runner without Go, the action of a release tag downloads that
// release's binary, checks its sum, and checks the pull request with it,
// in seconds.
func TestActionDownloadsRelease(t *testing.T) {
	url := release(t, "v9.9.9", "")
	r := newRunner(t)
	r.actionRef, r.basePath = "v9.9.9", noGoPath
	start := time.Now()
	out, outcome := r.action(map[string]string{
		"paths":       "testdata/lab",
		"matrix":      "testdata/lab/support-matrix.csv",
		"release-url": url,
		"sarif-file":  filepath.Join(t.TempDir(), "d.sarif"),
	})
	took := time.Since(start)
	log := r.log.String()
	if outcome != "failure" || out["exit-code"] != "1" || calledSetupGo(r) {
		t.Fatalf("outcome %s, outputs %v, called %v\n%s", outcome, out, r.called, log)
	}
	if took > 10*time.Second {
		t.Errorf("the action took %s with a download; want under 10s", took)
	}
	v, err := exec.Command(filepath.Join(r.path[0], "drvcheck"), "version").Output()
	if err != nil || !strings.HasPrefix(string(v), "drvcheck v9.9.9\n") {
		t.Errorf("drvcheck on PATH: %v %q", err, v)
	}
	if !strings.Contains(log, "installed in") {
		t.Errorf("no install line:\n%s", log)
	}
}

// A binary whose sum differs from checksums.txt is never run, and the
// action does not fall back to building: the job fails.
func TestActionRefusesChecksumMismatch(t *testing.T) {
	url := release(t, "v9.9.8", strings.Repeat("ab", 32))
	r := newRunner(t)
	r.actionRef, r.basePath = "v9.9.8", noGoPath
	_, outcome := r.action(map[string]string{"paths": "testdata/lab", "release-url": url, "sarif-file": filepath.Join(t.TempDir(), "x.sarif")})
	log := r.log.String()
	if outcome != "failure" || !strings.Contains(log, "checksum mismatch for drvcheck-") || calledSetupGo(r) || strings.Contains(log, "--- step Run drvcheck") {
		t.Errorf("outcome %s, called %v\n%s", outcome, r.called, log)
	}
}

// A tag with no release (a 404) builds from source; so does
// build-from-source, without asking the server at all.
func TestActionBuildsWithoutRelease(t *testing.T) {
	url := release(t, "v9.9.7", "")
	for name, with := range map[string]map[string]string{
		"no-such-release":   {"release-url": url + "/nothing-here"},
		"build-from-source": {"release-url": "http://127.0.0.1:1", "build-from-source": "true"},
	} {
		t.Run(name, func(t *testing.T) {
			r := newRunner(t)
			r.actionRef = "v9.9.7"
			with["paths"], with["matrix"], with["sarif-file"] = "testdata/lab", "testdata/lab/support-matrix.csv", filepath.Join(t.TempDir(), "b.sarif")
			out, outcome := r.action(with)
			if outcome != "failure" || out["exit-code"] != "1" || !calledSetupGo(r) {
				t.Errorf("outcome %s, outputs %v, called %v\n%s", outcome, out, r.called, r.log.String())
			}
		})
	}
}

// The pull request check without cluster access: the repository's
// workloads against a nodes snapshot, with extra flags passed through.
func TestActionChecksAgainstSnapshot(t *testing.T) {
	r := newRunner(t)
	snap := filepath.Join(r.workspace, "nodes.yaml")
	cmd := exec.Command(filepath.Join(bin, "drvcheck"), "snapshot", "nodes", filepath.Join(repo, "testdata", "lab"), "--file", snap)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("snapshot: %v %s", err, out)
	}
	k8s := filepath.Join(r.workspace, "testdata", "lab", "k8s")
	for _, f := range []string{"nodes.yaml", "node3.yaml"} {
		if err := os.Remove(filepath.Join(k8s, f)); err != nil {
			t.Fatal(err)
		}
	}
	out, outcome := r.action(map[string]string{
		"paths":      "testdata/lab/k8s",
		"nodes":      "nodes.yaml",
		"matrix":     "testdata/lab/support-matrix.csv",
		"args":       "--policy testdata/policies/acme\n--fail-on warning",
		"fail-on":    "none",
		"sarif-file": filepath.Join(t.TempDir(), "s.sarif"),
	})
	log := r.log.String()
	// --fail-on none comes last on the command line, so it wins over the
	// passed-through warning; ACME's warnings show the policy was read.
	if outcome != "success" || out["warnings"] == "0" || out["errors"] == "0" ||
		!strings.Contains(log, "::error file=nodes.yaml,line=") {
		t.Errorf("outcome %s, outputs %v\n%s", outcome, out, log)
	}
	bad, outcome := r.action(map[string]string{"mode": "audit", "sarif-file": filepath.Join(t.TempDir(), "m.sarif")})
	if outcome != "failure" || bad["exit-code"] != "" || !strings.Contains(r.log.String(), `mode "audit": want check, scan or merge`) {
		t.Errorf("mode audit: outcome %s\n%s", outcome, r.log.String())
	}
	// A sarif-file holding a line break would write a line of its own
	// into GITHUB_OUTPUT: exit-code=0 over the real one.
	forged, outcome := r.action(map[string]string{"paths": "testdata/lab", "sarif-file": filepath.Join(t.TempDir(), "x.sarif") + "\nexit-code=0"})
	if outcome != "failure" || forged["exit-code"] != "" || !strings.Contains(r.log.String(), "must not hold a line break") {
		t.Errorf("a line break in sarif-file: outcome %s, outputs %v\n%s", outcome, forged, r.log.String())
	}
}

// The action on a GitOps repository, unchanged: overlays built, the chart
// rendered, a workflow skipped, annotations at the source files' lines.
func TestActionOnGitOpsRepository(t *testing.T) {
	r := newRunner(t)
	out, outcome := r.action(map[string]string{"paths": "testdata/gitops", "sarif-file": filepath.Join(t.TempDir(), "g.sarif")})
	log := r.log.String()
	if outcome != "failure" || out["exit-code"] != "1" || out["errors"] != "6" ||
		!strings.Contains(log, "::error file=testdata/gitops/apps/triton/base/deployment.yaml,line=14,title=DRV010 unschedulable-affinity::Deployment/prod/prod-triton:") ||
		!strings.Contains(log, "source https://helm.ngc.nvidia.com/nvidia is not a path of this repository; not followed") ||
		!strings.Contains(log, "skipped 1 file(s) that hold no Kubernetes object") {
		t.Errorf("outcome %s, outputs %v\n%s", outcome, out, log)
	}
}

package integrations

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

type hook struct {
	ID               string   `yaml:"id"`
	Name             string   `yaml:"name"`
	Description      string   `yaml:"description"`
	Entry            string   `yaml:"entry"`
	Args             []string `yaml:"args"`
	Language         string   `yaml:"language"`
	Files            string   `yaml:"files"`
	PassFilenames    *bool    `yaml:"pass_filenames"`
	RequireSerial    bool     `yaml:"require_serial"`
	MinimumPreCommit string   `yaml:"minimum_pre_commit_version"`
}

func hooks(t *testing.T) map[string]hook {
	t.Helper()
	var list []hook
	parseFile(t, ".pre-commit-hooks.yaml", &list)
	out := map[string]hook{}
	for _, h := range list {
		out[h.ID] = h
	}
	return out
}

func TestPreCommitHooksDeclare(t *testing.T) {
	hs := hooks(t)
	for _, id := range []string{"drvcheck", "drvcheck-offline", "drvcheck-tree"} {
		h, ok := hs[id]
		if !ok {
			t.Errorf("no hook %s", id)
			continue
		}
		// The released binary on PATH: no Go toolchain to install first.
		if h.Language != "system" || !strings.HasPrefix(h.Entry, "drvcheck check") || !h.RequireSerial {
			t.Errorf("%s: language %q entry %q require_serial %v", id, h.Language, h.Entry, h.RequireSerial)
		}
		// The staged files, as rendered, and the snapshot, or the whole tree.
		whole := id == "drvcheck-tree"
		if h.PassFilenames == nil || *h.PassFilenames == whole || whole != slices.Equal(h.Args, []string{"."}) ||
			!whole && !slices.Equal(h.Args, []string{"--as-rendered", "--nodes", ".drvcheck/nodes.yaml", "--"}) {
			t.Errorf("%s: pass_filenames %v args %v", id, h.PassFilenames, h.Args)
		}
		re, err := regexp.Compile(h.Files)
		if err != nil {
			t.Fatalf("%s: files %q: %v", id, h.Files, err)
		}
		for name, want := range map[string]bool{
			"k8s/pool.yaml": true, "a.yml": true, "list.json": true, "README.md": false, "x.yaml.bak": false, "main.go": false,
		} {
			if re.MatchString(name) != want {
				t.Errorf("%s: files %q matches %s: %v", id, h.Files, name, !want)
			}
		}
	}
	if e := hs["drvcheck-offline"].Entry; !strings.Contains(e, "--offline") {
		t.Errorf("drvcheck-offline entry %q lacks --offline", e)
	}
}

// The install line the hooks' comment gives is the installer's usage.
func TestPreCommitInstallLine(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repo, ".pre-commit-hooks.yaml"))
	if err != nil || !strings.Contains(string(data), "/hack/install.sh) v1.0.0 ~/.local/bin") ||
		!strings.Contains(string(data), "go install github.com/drvcheck/drvcheck/cmd/drvcheck@") {
		t.Errorf("no install line: %v", err)
	}
}

// labRepo copies the lab into a fresh repository with the files a user has
// at its root: .drvcheck.yaml and .pre-commit-config.yaml.
func labRepo(t *testing.T, config string) string {
	t.Helper()
	dir := t.TempDir()
	lab := filepath.Join(repo, "testdata", "lab")
	err := filepath.WalkDir(lab, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(lab, path)
		if !labNodeFiles[rel] {
			return nil // the lab's workloads bring findings of other rules
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return writeTo(filepath.Join(dir, rel), data)
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		// A repository is not all Kubernetes: a Helm chart (rendered) and a
		// workflow (skipped) sit beside the manifests.
		"chart/Chart.yaml":             "apiVersion: v2\nname: gpu-inference\nversion: 0.1.0\n",
		"chart/values.yaml":            "replicaCount: 2\n",
		"chart/templates/service.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\n  {{- with .Values.labels }}\n  labels: {{ toYaml . }}\n  {{- end }}\n",
		"ci/workflow.yml":              "on: [push]\njobs: {}\n",
		".git/HEAD":                    "ref: refs/heads/main\n",
		".drvcheck.yaml":               config,
		".pre-commit-config.yaml":      "repos:\n- repo: https://github.com/drvcheck/drvcheck\n  rev: v1.0.0\n  hooks:\n  - id: drvcheck\n",
	} {
		if err := writeTo(filepath.Join(dir, name), []byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// labNodeFiles are the lab's files about nodes and their images: a repository
// whose only finding is lab-node-3's missing image (DRV001).
var labNodeFiles = map[string]bool{
	"k8s/namespace.yaml": true, "k8s/nodes.yaml": true, "k8s/node3.yaml": true, "support-matrix.csv": true,
}

func writeTo(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// runHook runs a hook's command line as pre-commit does (entry, args, then
// the staged files when pass_filenames) in dir, with the drvcheck built for
// the tests on PATH.
func runHook(t *testing.T, h hook, dir string, staged ...string) (int, string) {
	t.Helper()
	code, out, _ := timedHook(t, h, dir, staged...)
	return code, out
}

// timedHook is runHook, and the CPU time (user and system) the hook's
// processes took.
func timedHook(t *testing.T, h hook, dir string, staged ...string) (int, string, time.Duration) {
	t.Helper()
	argv := append(strings.Fields(h.Entry), h.Args...)
	if h.PassFilenames != nil && *h.PassFilenames {
		argv = append(argv, staged...)
	}
	// The entry is found on PATH, where the install put it.
	prog := filepath.Join(bin, argv[0])
	if _, err := os.Stat(prog); err != nil {
		t.Fatalf("%s: entry %s is not on PATH: %v", h.ID, argv[0], err)
	}
	cmd := exec.Command(prog, argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+pathWith(bin))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return cmd.ProcessState.ExitCode(), out.String(), cpu
}

// snapshotRepo is labRepo with the lab's nodes only in the snapshot the
// nightly job would have committed, and trainer.yaml staged beside.
func snapshotRepo(t *testing.T, config string) string {
	t.Helper()
	dir := labRepo(t, config)
	snap := filepath.Join(dir, ".drvcheck", "nodes.yaml")
	if err := os.MkdirAll(filepath.Dir(snap), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "drvcheck"), "snapshot", "nodes", filepath.Join(dir, "k8s"), "--file", snap)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("snapshot: %v %s", err, out)
	}
	for _, f := range []string{"k8s/nodes.yaml", "k8s/node3.yaml"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join(repo, "testdata", "lab", "k8s", "cuda12-job.yaml"))
	if err != nil || writeTo(filepath.Join(dir, "k8s", "cuda12-job.yaml"), data) != nil {
		t.Fatal(err)
	}
	return dir
}

// The drvcheck hook on a repository holding the lab: the staged file meets
// the nodes snapshot, in well under a second; .drvcheck.yaml's matrix is
// used (without it DRV001 is skipped and the hook would pass); a commit
// that adds an exception for the finding passes. The second is of CPU
// time: on a machine running the whole suite at once, the wall clock
// measured the suite (1.6 s, where the hook alone takes 0.2 s of CPU).
func TestPreCommitHookOnLab(t *testing.T) {
	h := hooks(t)["drvcheck"]
	dir := snapshotRepo(t, "matrix: [support-matrix.csv]\n")
	code, out, cpu := timedHook(t, h, dir, "k8s/cuda12-job.yaml", "chart/values.yaml")
	t.Logf("the hook took %s of CPU", cpu)
	if cpu > time.Second {
		t.Errorf("the hook took %s of CPU; want under 1s", cpu)
	}
	if code != 1 || !strings.Contains(out, "DRV001 missing-driver-image  Node/lab-node-3\n    .drvcheck/nodes.yaml:65") ||
		!strings.Contains(out, "DRV023 drain-needs-force  Pod/gpu-drv/cuda12-job\n    k8s/cuda12-job.yaml:") {
		t.Errorf("exit %d\n%s", code, out)
	}
	dir = snapshotRepo(t, `matrix: [support-matrix.csv]
exceptions:
- {rule: DRV001, object: Node/lab-node-3, reason: "image build in OPS-12", expires: "2999-01-01"}
`)
	code, out = runHook(t, h, dir, "k8s/cuda12-job.yaml")
	if code != 0 || !strings.Contains(out, "0 error(s), 1 warning(s), 1 suppressed;") {
		t.Errorf("with the exception: exit %d\n%s", code, out)
	}
}

// drvcheck-offline runs check --offline: the matrix and the cache only.
func TestPreCommitOfflineHookOnLab(t *testing.T) {
	code, out := runHook(t, hooks(t)["drvcheck-offline"], snapshotRepo(t, "matrix: [support-matrix.csv]\n"), "k8s/cuda12-job.yaml")
	if code != 1 || !strings.Contains(out, "DRV001 missing-driver-image  Node/lab-node-3") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// drvcheck-tree reads the whole repository, its own dot files excepted,
// renders the chart and skips the workflow beside the manifests.
func TestPreCommitTreeHookOnLab(t *testing.T) {
	code, out := runHook(t, hooks(t)["drvcheck-tree"], labRepo(t, "matrix: [support-matrix.csv]\n"), "ignored.yaml")
	if code != 1 || !strings.Contains(out, "DRV001 missing-driver-image  Node/lab-node-3\n    k8s/node3.yaml:") ||
		!strings.Contains(out, "drvcheck: warning: skipped 1 file(s) that hold no Kubernetes object (the first: ci/workflow.yml: no kind") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// The whole-tree hook on a GitOps repository, unchanged.
func TestPreCommitTreeHookOnGitOps(t *testing.T) {
	code, out := runHook(t, hooks(t)["drvcheck-tree"], filepath.Join(repo, "testdata", "gitops"))
	if code != 1 || !strings.Contains(out, "DRV010 unschedulable-affinity  Deployment/prod/prod-triton\n    apps/triton/base/deployment.yaml:14") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// Staging only a chart's values.yaml runs the chart's checks: the hook
// checks the chart it belongs to, rendered, so a nodeSelector changed to
// a label no node has is caught (it used to be skipped as Helm values).
// A staged template alone does the same.
func TestPreCommitHookRendersAStagedValuesFile(t *testing.T) {
	h := hooks(t)["drvcheck"]
	dir := snapshotRepo(t, "matrix: [support-matrix.csv]\nexceptions:\n- {rule: DRV001, object: Node/lab-node-3, reason: known, expires: \"2999-01-01\"}\n")
	for name, content := range map[string]string{
		"chart/values.yaml": "replicaCount: 1\nnodeSelector: {gpu.pool: a100}\n",
		"chart/templates/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: {{ .Release.Name }}-infer, namespace: gpu-drv}
spec:
  replicas: {{ .Values.replicaCount }}
  selector: {matchLabels: {app: infer}}
  template:
    metadata: {labels: {app: infer}}
    spec:
      nodeSelector: {{ toYaml .Values.nodeSelector | nindent 8 }}
      containers: [{name: c, image: nvcr.io/nvidia/tritonserver:24.08-py3}]
`,
	} {
		if err := writeTo(filepath.Join(dir, name), []byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	for _, staged := range []string{"chart/values.yaml", "chart/templates/deployment.yaml"} {
		code, out := runHook(t, h, dir, staged)
		if code != 1 || !strings.Contains(out, "DRV010 unschedulable-affinity  Deployment/gpu-drv/") || !strings.Contains(out, "gpu.pool") {
			t.Errorf("staged %s: exit %d\n%s", staged, code, out)
		}
	}
}

// drvcheck-tree reads the snapshot that .drvcheck.yaml names (nodes:), so
// the node rules run on the whole tree too.
func TestPreCommitTreeHookReadsTheSnapshot(t *testing.T) {
	dir := snapshotRepo(t, "matrix: [support-matrix.csv]\nnodes: [.drvcheck/nodes.yaml]\n")
	code, out := runHook(t, hooks(t)["drvcheck-tree"], dir, "k8s/cuda12-job.yaml")
	if code != 1 || !strings.Contains(out, "DRV001 missing-driver-image  Node/lab-node-3\n    .drvcheck/nodes.yaml:") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// pre-commit itself, on a repository whose files are named like
// drvcheck's flags: it appends the file names after the hook's args, and
// without the "--" that ends them a file named --report=json=pwned.json
// chose where a report went and --baseline=base.json a baseline that hid
// the finding. Run with --all-files, so the names are git's own.
func TestPreCommitFileNamesThatLookLikeFlags(t *testing.T) {
	if _, err := exec.LookPath("pre-commit"); err != nil {
		if os.Getenv("DRVCHECK_REQUIRE_PRECOMMIT") != "" {
			t.Fatal("pre-commit is not on PATH and DRVCHECK_REQUIRE_PRECOMMIT is set")
		}
		t.Skip("pre-commit is not on PATH")
	}
	dir := snapshotRepo(t, "matrix: [support-matrix.csv]\n")
	cm := []byte(`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}` + "\n")
	baseline := []byte(`{"findings": [{"rule": "DRV001", "object": {"kind": "Node", "namespace": "", "name": "lab-node-3"}, "message": "known"}]}` + "\n")
	for name, data := range map[string][]byte{"--report=json=pwned.json": cm, "--baseline=base.json": cm, "base.json": baseline} {
		if err := writeTo(filepath.Join(dir, name), data); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "PATH="+pathWith(bin), "PRE_COMMIT_HOME="+t.TempDir(), "HOME="+t.TempDir(),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	run := func(name string, args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("%s: %v", name, err)
		}
		return cmd.ProcessState.ExitCode(), string(out)
	}
	if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}} {
		if code, out := run("git", args...); code != 0 {
			t.Fatalf("git %v: %s", args, out)
		}
	}
	code, out := run("pre-commit", "try-repo", repo, "drvcheck", "--all-files", "--verbose")
	if code != 1 || !strings.Contains(out, "DRV001 missing-driver-image  Node/lab-node-3") || strings.Contains(out, "against the baseline") {
		t.Errorf("exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned.json")); err == nil {
		t.Error("a file name chose a report path")
	}
}

package integrations

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	yaml "sigs.k8s.io/yaml/goyaml.v3"
)

// A small GitHub Actions runner for the parts this repository uses: a job's
// steps, the composite action at the repository root (uses: ./), shell
// steps run as the runner runs them (bash -eo pipefail, GITHUB_OUTPUT,
// GITHUB_PATH, GITHUB_STEP_SUMMARY), and ${{ }} expressions over inputs,
// steps, github, runner and secrets. Other actions (checkout, setup-go,
// upload-sarif, upload-artifact) are recorded, not run. An expression or
// condition it does not know fails the test, so the files stay within what
// is tested.

type step struct {
	Name             string            `yaml:"name"`
	ID               string            `yaml:"id"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	Shell            string            `yaml:"shell"`
	Run              string            `yaml:"run"`
	WorkingDirectory string            `yaml:"working-directory"`
	Env              map[string]string `yaml:"env"`
	With             map[string]string `yaml:"with"`
	ContinueOnError  bool              `yaml:"continue-on-error"`
}

type actionFile struct {
	Name        string            `yaml:"name"`
	Description string            `yaml:"description"`
	Author      string            `yaml:"author"`
	Branding    map[string]string `yaml:"branding"`
	Inputs      map[string]struct {
		Description string `yaml:"description"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []step `yaml:"steps"`
	} `yaml:"runs"`
}

type workflow struct {
	Name        string            `yaml:"name"`
	Env         map[string]string `yaml:"env"`
	On          yaml.Node         `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]job    `yaml:"jobs"`
}

type job struct {
	RunsOn   string `yaml:"runs-on"`
	Needs    string `yaml:"needs"`
	If       string `yaml:"if"`
	Strategy struct {
		FailFast bool `yaml:"fail-fast"`
		Matrix   struct {
			Include []map[string]string `yaml:"include"`
		} `yaml:"matrix"`
	} `yaml:"strategy"`
	Steps []step `yaml:"steps"`
}

func parseFile(t *testing.T, rel string, into any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, rel))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(into); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
}

// stepResult is what later steps can read of a step.
type stepResult struct {
	outputs map[string]string
	outcome string // success or failure
}

// scope is what expressions of one step list (a job, or a composite action) see.
type scope struct {
	inputs map[string]string
	steps  map[string]*stepResult
}

// usesCall records an action that was called but not run.
type usesCall struct {
	uses string
	with map[string]string
}

type ghRunner struct {
	t         *testing.T
	actionRef string // github.action_ref: "test-ref", no release tag, unless a test says
	// basePath, when set, is the PATH steps start from in place of the
	// test's own (which has Go): a runner image without Go.
	basePath  string
	workspace string // the checkout: a copy of testdata/ in a git folder
	temp      string
	path      []string // GITHUB_PATH additions, most recent first
	secrets   map[string]string
	env       map[string]string // the workflow's env, for every step and env.X
	summary   string            // GITHUB_STEP_SUMMARY of the job
	called    []usesCall
	log       strings.Builder
	// A workflow's run: the matrix entry of the job that runs, the
	// results of the jobs done, and the artifacts they uploaded (a
	// folder each, under artifacts).
	jobName   string
	matrix    map[string]string
	needs     map[string]string
	artifacts string
}

func newRunner(t *testing.T) *ghRunner {
	dir := t.TempDir()
	r := &ghRunner{t: t, actionRef: "test-ref", workspace: filepath.Join(dir, "workspace"), temp: filepath.Join(dir, "runner-temp"),
		summary: filepath.Join(dir, "step-summary.md"), secrets: map[string]string{}, needs: map[string]string{}, artifacts: filepath.Join(dir, "artifacts")}
	if err := os.MkdirAll(r.temp, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"lab", "policies", "gitops"} {
		if err := os.CopyFS(filepath.Join(r.workspace, "testdata", d), os.DirFS(filepath.Join(repo, "testdata", d))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(r.workspace, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return r
}

var exprRe = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// expand replaces every ${{ }} in s.
func (r *ghRunner) expand(s string, sc *scope) string {
	return exprRe.ReplaceAllStringFunc(s, func(m string) string {
		return r.value(exprRe.FindStringSubmatch(m)[1], sc)
	})
}

// value resolves one context reference, or one comparison of a reference
// with a literal.
func (r *ghRunner) value(expr string, sc *scope) string {
	if m := condRe.FindStringSubmatch(expr); m != nil {
		return fmt.Sprint((r.value(m[1], sc) == m[3]) == (m[2] == "=="))
	}
	parts := strings.Split(expr, ".")
	switch {
	case parts[0] == "inputs" && len(parts) == 2 && sc.inputs != nil:
		v, ok := sc.inputs[parts[1]]
		if !ok {
			r.t.Fatalf("expression %q: no input %s", expr, parts[1])
		}
		return v
	case parts[0] == "steps" && len(parts) == 4 && parts[2] == "outputs":
		if s := sc.steps[parts[1]]; s != nil {
			return s.outputs[parts[3]]
		}
		return ""
	case parts[0] == "steps" && len(parts) == 3 && parts[2] == "outcome":
		if s := sc.steps[parts[1]]; s != nil {
			return s.outcome
		}
		return ""
	case expr == "github.action_path":
		return repo
	case expr == "github.action_ref":
		return r.actionRef
	case expr == "github.token":
		return "test-github-token"
	case expr == "github.workspace":
		return r.workspace
	case expr == "runner.temp":
		return r.temp
	case parts[0] == "secrets" && len(parts) == 2:
		return r.secrets[parts[1]]
	case strings.HasPrefix(expr, "secrets[") && strings.HasSuffix(expr, "]"):
		return r.secrets[r.value(strings.TrimSuffix(strings.TrimPrefix(expr, "secrets["), "]"), sc)]
	case parts[0] == "matrix" && len(parts) == 2:
		v, ok := r.matrix[parts[1]]
		if !ok {
			r.t.Fatalf("expression %q: the matrix entry %v has no %s", expr, r.matrix, parts[1])
		}
		return v
	case parts[0] == "needs" && len(parts) == 3 && parts[2] == "result":
		return r.needs[parts[1]]
	case expr == "github.job":
		return r.jobName
	case parts[0] == "env" && len(parts) == 2:
		return r.env[parts[1]]
	}
	r.t.Fatalf("expression %q is not supported by the test runner", expr)
	return ""
}

var condRe = regexp.MustCompile(`^(\S+) (==|!=) '([^']*)'$`)

// condition evaluates an if: of the form "context == 'literal'".
func (r *ghRunner) condition(cond string, sc *scope) bool {
	if cond == "" || cond == "always()" {
		return true
	}
	m := condRe.FindStringSubmatch(strings.TrimSpace(exprRe.ReplaceAllString(cond, "$1")))
	if m == nil {
		r.t.Fatalf("condition %q is not supported by the test runner", cond)
	}
	return (r.value(m[1], sc) == m[3]) == (m[2] == "==")
}

// shell runs one run: step and returns its outputs and exit code.
func (r *ghRunner) shell(s step, sc *scope, actionPath string) (map[string]string, int) {
	r.t.Helper()
	if s.Shell != "" && s.Shell != "bash" {
		r.t.Fatalf("step %q: shell %q; the test runner runs bash only", s.Name, s.Shell)
	}
	dir, err := os.MkdirTemp(r.temp, "step-")
	if err != nil {
		r.t.Fatal(err)
	}
	script, output, pathFile := filepath.Join(dir, "script.sh"), filepath.Join(dir, "output"), filepath.Join(dir, "path")
	if err := os.WriteFile(script, []byte(r.expand(s.Run, sc)), 0o644); err != nil {
		r.t.Fatal(err)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = r.workspace
	if s.WorkingDirectory != "" {
		cmd.Dir = filepath.Join(r.workspace, r.expand(s.WorkingDirectory, sc))
	}
	cmd.Env = append(os.Environ(),
		"CI=true", "GITHUB_ACTIONS=true",
		"GITHUB_OUTPUT="+output, "GITHUB_PATH="+pathFile, "GITHUB_STEP_SUMMARY="+r.summary,
		"GITHUB_ENV="+filepath.Join(dir, "env"), "GITHUB_WORKSPACE="+r.workspace, "RUNNER_TEMP="+r.temp,
		"PATH="+r.stepPath())
	if actionPath != "" {
		cmd.Env = append(cmd.Env, "GITHUB_ACTION_PATH="+actionPath)
	}
	for k, v := range r.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	for k, v := range s.Env {
		cmd.Env = append(cmd.Env, k+"="+r.expand(v, sc))
	}
	out, err := cmd.CombinedOutput()
	fmt.Fprintf(&r.log, "--- step %s\n%s", s.Name, out)
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		r.t.Fatalf("step %q: %v", s.Name, err)
	}
	for _, p := range readLines(pathFile) {
		r.path = append([]string{p}, r.path...)
	}
	outputs := map[string]string{}
	for _, l := range readLines(output) {
		if k, v, ok := strings.Cut(l, "="); ok {
			outputs[k] = v
		}
	}
	return outputs, code
}

// stepPath is GITHUB_PATH's additions in front of the runner's PATH.
func (r *ghRunner) stepPath() string {
	if r.basePath == "" {
		return pathWith(r.path...)
	}
	return strings.Join(append(slices.Clone(r.path), r.basePath), string(os.PathListSeparator))
}

func readLines(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// action runs the composite action at the repository root with the given
// inputs (already expanded) and returns its outputs and outcome.
func (r *ghRunner) action(with map[string]string) (map[string]string, string) {
	r.t.Helper()
	var a actionFile
	parseFile(r.t, "action.yml", &a)
	if a.Runs.Using != "composite" {
		r.t.Fatalf("action.yml: runs.using %q, want composite", a.Runs.Using)
	}
	sc := &scope{inputs: map[string]string{}, steps: map[string]*stepResult{}}
	for name, in := range a.Inputs {
		sc.inputs[name] = in.Default
	}
	for k, v := range with {
		if _, ok := a.Inputs[k]; !ok {
			r.t.Fatalf("action.yml has no input %q", k)
		}
		sc.inputs[k] = v
	}
	outcome := "success"
	for _, s := range a.Runs.Steps {
		if !r.condition(s.If, sc) {
			continue
		}
		if s.Uses != "" {
			with := r.expandMap(s.With, sc)
			r.called = append(r.called, usesCall{s.Uses, with})
			if strings.HasPrefix(s.Uses, "actions/upload-artifact@") && !r.artifact(s.Uses, with) && !s.ContinueOnError {
				outcome = "failure"
				break
			}
			continue
		}
		outputs, code := r.shell(s, sc, repo)
		res := &stepResult{outputs: outputs, outcome: "success"}
		if code != 0 {
			res.outcome, outcome = "failure", "failure"
		}
		if s.ID != "" {
			sc.steps[s.ID] = res
		}
		if code != 0 {
			break
		}
	}
	outputs := map[string]string{}
	for name, o := range a.Outputs {
		outputs[name] = r.expand(o.Value, sc)
	}
	return outputs, outcome
}

func (r *ghRunner) expandMap(m map[string]string, sc *scope) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = r.expand(v, sc)
	}
	return out
}

// publishedAction is how copyable workflows name this action; the test
// runs this checkout's action.yml in its place.
const publishedAction = "drvcheck/drvcheck@"

// job runs one job of a workflow and returns whether it succeeded.
func (r *ghRunner) job(steps []step) bool {
	r.t.Helper()
	sc := &scope{steps: map[string]*stepResult{}}
	for _, s := range steps {
		if !r.condition(s.If, sc) {
			continue
		}
		res := &stepResult{outcome: "success"}
		switch {
		case s.Uses == "./" || strings.HasPrefix(s.Uses, publishedAction):
			res.outputs, res.outcome = r.action(r.expandMap(s.With, sc))
		case strings.HasPrefix(s.Uses, "actions/upload-artifact@"), strings.HasPrefix(s.Uses, "actions/download-artifact@"):
			with := r.expandMap(s.With, sc)
			r.called = append(r.called, usesCall{s.Uses, with})
			if !r.artifact(s.Uses, with) {
				res.outcome = "failure"
			}
		case s.Uses != "":
			r.called = append(r.called, usesCall{s.Uses, r.expandMap(s.With, sc)})
		default:
			var code int
			res.outputs, code = r.shell(s, sc, "")
			if code != 0 {
				res.outcome = "failure"
			}
		}
		if s.ID != "" {
			sc.steps[s.ID] = res
		}
		if res.outcome == "failure" && !s.ContinueOnError {
			return false
		}
	}
	return true
}

// artifact does what upload-artifact and download-artifact do with
// files: an upload keeps its one file under its name, refusing a name
// already taken in the run (GitHub's 409) or, with if-no-files-found
// error, a path that does not exist; a download of a pattern puts each
// matching artifact in a folder of its name under path.
func (r *ghRunner) artifact(uses string, with map[string]string) bool {
	r.t.Helper()
	if strings.HasPrefix(uses, "actions/upload-artifact@") {
		dir := filepath.Join(r.artifacts, with["name"])
		if _, err := os.Stat(dir); err == nil {
			fmt.Fprintf(&r.log, "upload-artifact: an artifact named %s already exists in this run\n", with["name"])
			return false
		}
		data, err := os.ReadFile(with["path"])
		if err != nil {
			fmt.Fprintf(&r.log, "upload-artifact: %v\n", err)
			return with["if-no-files-found"] != "error"
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			r.t.Fatal(err)
		}
		return os.WriteFile(filepath.Join(dir, filepath.Base(with["path"])), data, 0o644) == nil
	}
	entries, _ := os.ReadDir(r.artifacts)
	for _, e := range entries {
		if ok, _ := filepath.Match(with["pattern"], e.Name()); ok {
			if err := os.CopyFS(filepath.Join(r.workspace, with["path"], e.Name()), os.DirFS(filepath.Join(r.artifacts, e.Name()))); err != nil {
				r.t.Fatal(err)
			}
		}
	}
	return true
}

// run runs a workflow's jobs, each after the job it needs, a job with a
// matrix once per entry, and returns each job's result: success when
// every entry succeeded. A job whose needed job did not succeed is
// skipped unless its if: is always().
func (r *ghRunner) run(w workflow) map[string]string {
	r.t.Helper()
	done := map[string]string{}
	for len(done) < len(w.Jobs) {
		progress := false
		for _, name := range slices.Sorted(maps.Keys(w.Jobs)) {
			j := w.Jobs[name]
			if _, ok := done[name]; ok || (j.Needs != "" && done[j.Needs] == "") {
				continue
			}
			progress = true
			r.jobName, r.needs = name, done
			if j.Needs != "" && done[j.Needs] != "success" && j.If != "always()" || !r.condition(j.If, &scope{}) {
				done[name] = "skipped"
				continue
			}
			entries := j.Strategy.Matrix.Include
			if len(entries) == 0 {
				entries = []map[string]string{nil}
			}
			done[name] = "success"
			for _, m := range entries {
				r.matrix = m
				fmt.Fprintf(&r.log, "=== job %s %v\n", name, m)
				if !r.job(j.Steps) {
					done[name] = "failure"
				}
			}
		}
		if !progress {
			r.t.Fatalf("jobs %v wait for jobs that do not exist", slices.Sorted(maps.Keys(w.Jobs)))
		}
	}
	return done
}

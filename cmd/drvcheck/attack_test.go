package main

// The attack suite: docs/security.md's promises against a hostile pull
// request, each held by hostile repositories the tests build at run time
// (symbolic links out of the repository, named pipes, URLs of loopback
// servers that count requests, template and patch bombs), with canary
// secrets in a temporary HOME beside the repository, as a CI runner keeps
// its credentials. A promise broken is a failing test, not a note.

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// canary is the secret no output may ever hold.
const canary = "CANARY-7f3a9c"

// workspace is a runner's disk: a repository (the pull request's) and a
// HOME of secrets beside it, with a loopback server that counts every
// request a repository's URL could make.
type workspace struct {
	t          *testing.T
	repo, home string
	hits       atomic.Int64
	url        string
}

func newWorkspace(t *testing.T) *workspace {
	t.Helper()
	base := t.TempDir()
	w := &workspace{t: t, repo: filepath.Join(base, "repo"), home: filepath.Join(base, "home")}
	w.file(".git/HEAD", "ref: refs/heads/main\n")
	for _, secret := range []string{".aws/credentials", ".kube/config", "values.yaml", "chart/Chart.yaml", "kbase/kustomization.yaml"} {
		w.homeFile(secret, "")
	}
	w.homeFile(".aws/credentials", "[default]\naws_secret_access_key = "+canary+"\n")
	w.homeFile(".kube/config", "apiVersion: v1\nkind: Config\ntoken: "+canary+"\n")
	w.homeFile("values.yaml", "name: "+canary+"\n")
	w.homeFile("chart/Chart.yaml", "apiVersion: v2\nname: outside\nversion: 0.1.0\n")
	w.homeFile("chart/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations: {secret: "+canary+"}\n")
	w.homeFile("kbase/kustomization.yaml", "resources: [cm.yaml]\n")
	w.homeFile("kbase/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "+strings.ToLower(canary)+"\n")
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
		w.hits.Add(1)
		fmt.Fprintf(rw, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fetched, annotations: {a: %s}}\n", canary)
	}))
	t.Cleanup(srv.Close)
	w.url = srv.URL
	return w
}

// enter makes w the working folder and HOME of the in-process runs.
func (w *workspace) enter() *workspace {
	w.t.Setenv("HOME", w.home)
	w.t.Chdir(w.repo)
	return w
}

func (w *workspace) file(rel, content string) string {
	w.t.Helper()
	return writeAt(w.t, filepath.Join(w.repo, rel), content)
}

func (w *workspace) homeFile(rel, content string) string {
	w.t.Helper()
	return writeAt(w.t, filepath.Join(w.home, rel), content)
}

func writeAt(t *testing.T, p, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (w *workspace) link(target, rel string) {
	w.t.Helper()
	p := filepath.Join(w.repo, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		w.t.Fatal(err)
	}
}

// chart writes a chart at rel with the given templates.
func (w *workspace) chart(rel string, templates map[string]string) {
	w.t.Helper()
	w.file(rel+"/Chart.yaml", "apiVersion: v2\nname: "+filepath.Base(rel)+"\nversion: 0.1.0\n")
	for name, text := range templates {
		w.file(rel+"/templates/"+name, text)
	}
}

// held checks what every hostile run must give: exit 2 with one line
// naming want, no canary anywhere, no request made.
func (w *workspace) held(r result, want string) {
	w.t.Helper()
	if r.code != exitError || !strings.Contains(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 {
		w.t.Errorf("exit %d, stderr %q; want exit 2 and one line containing %q", r.code, r.stderr, want)
	}
	w.noLeak(r)
}

func (w *workspace) noLeak(r result) {
	w.t.Helper()
	if strings.Contains(r.stdout+r.stderr, canary) || strings.Contains(r.stdout+r.stderr, strings.ToLower(canary)) {
		w.t.Errorf("a secret from outside the repository reached the output:\n%s\n%s", r.stdout, r.stderr)
	}
	if n := w.hits.Load(); n != 0 {
		w.t.Errorf("%d request(s) reached the loopback server", n)
	}
}

// Promise 1: nothing outside the repository is read, whichever renderer
// or GitOps field points at it.
func TestAttackNothingOutsideTheRepositoryIsRead(t *testing.T) {
	cases := map[string]struct {
		build func(w *workspace)
		args  []string
		want  string
	}{
		"chart file linked out, read by .Files.Get into fail": {func(w *workspace) {
			w.chart("charts/c", map[string]string{"cm.yaml": `{{ fail (.Files.Get "creds") }}`})
			w.link(filepath.Join(w.home, ".aws/credentials"), "charts/c/creds")
		}, nil, "charts/c/creds: not read: a symbolic link outside the repository"},
		"template linked out": {func(w *workspace) {
			w.chart("charts/c", nil)
			w.link(filepath.Join(w.home, "chart/templates/cm.yaml"), "charts/c/templates/cm.yaml")
		}, nil, "outside the repository"},
		"chart folder linked out": {func(w *workspace) {
			w.link(filepath.Join(w.home, "chart"), "charts/c")
			w.file("app.yaml", argoApp("charts/c", ""))
		}, nil, "source path charts/c: "},
		"values file of the chart linked out": {func(w *workspace) {
			w.chart("charts/c", map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ .Values.name | lower }}}\n"})
			w.link(filepath.Join(w.home, "values.yaml"), "charts/c/prod.yaml")
			w.file("app.yaml", argoApp("charts/c", "valueFiles: [prod.yaml]"))
		}, nil, "outside the repository"},
		"Argo CD valueFiles up and out": {func(w *workspace) {
			w.chart("charts/c", map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ .Values.name | lower }}}\n"})
			w.file("charts/c/values.yaml", "name: default\n")
			w.file("app.yaml", argoApp("charts/c", "valueFiles: [../../../home/values.yaml]"))
		}, nil, "outside the repository"},
		"Flux HelmRelease chart linked out": {func(w *workspace) {
			w.link(filepath.Join(w.home, "chart"), "charts/c")
			w.file("hr.yaml", "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: c, namespace: flux}\nspec:\n  chart:\n    spec: {chart: charts/c, sourceRef: {kind: GitRepository, name: repo}}\n")
		}, nil, "chart charts/c: "},
		"config's helm-values out of the repository": {func(w *workspace) {
			w.chart("charts/c", nil)
			w.file(".drvcheck.yaml", "helm-values: [../home/.kube/config]\n")
		}, nil, "helm-values: ../home/.kube/config is outside the repository"},
		"config linked out": {func(w *workspace) {
			w.file("nodes.yaml", "")
			w.link(filepath.Join(w.home, ".kube/config"), ".drvcheck.yaml")
		}, nil, "outside the repository"},
		"kustomize base out of the repository": {func(w *workspace) {
			w.file("k/kustomization.yaml", "resources: [../../home/kbase]\n")
		}, nil, "../../home/kbase is outside the repository"},
		"kustomize base by absolute path": {func(w *workspace) {
			w.file("k/kustomization.yaml", "resources: ["+filepath.Join(w.home, "kbase")+"]\n")
		}, nil, "is outside the repository"},
		"kustomize base linked out": {func(w *workspace) {
			w.link(filepath.Join(w.home, "kbase"), "base")
			w.file("k/kustomization.yaml", "resources: [../base]\n")
		}, nil, "../base is outside the repository"},
		"kustomize resource file linked out": {func(w *workspace) {
			w.link(filepath.Join(w.home, "kbase/cm.yaml"), "k/cm.yaml")
			w.file("k/kustomization.yaml", "resources: [cm.yaml]\n")
		}, nil, "outside the repository"},
		"manifest named on the command line, linked out": {func(w *workspace) {
			w.link(filepath.Join(w.home, "kbase/cm.yaml"), "nodes.yaml")
		}, []string{"nodes.yaml"}, "nodes.yaml: not read: a symbolic link outside the repository"},
		"policy linked out": {func(w *workspace) {
			w.file("nodes.yaml", "")
			w.link(filepath.Join(w.home, ".aws/credentials"), "policy/leak.rego")
		}, []string{".", "--policy", "policy"}, "outside the repository"},
		// Another repository on the runner, which a folder of the pull
		// request links to: its .git must not make it a root.
		"folder linked to another repository": {func(w *workspace) {
			w.homeFile("kbase/.git/HEAD", "ref: refs/heads/main\n")
			w.link(filepath.Join(w.home, "kbase"), "deploy")
		}, []string{"deploy/"}, "outside the repository"},
		"file under a folder linked to another repository": {func(w *workspace) {
			w.homeFile("kbase/.git/HEAD", "ref: refs/heads/main\n")
			w.link(filepath.Join(w.home, "kbase"), "deploy")
		}, []string{"deploy/cm.yaml"}, "outside the repository"},
		"data linked out": {func(w *workspace) {
			w.file("nodes.yaml", "")
			w.link(filepath.Join(w.home, ".kube/config"), "data.yaml")
		}, []string{".", "--data", "data.yaml"}, "outside the repository"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			w := newWorkspace(t).enter()
			c.build(w)
			args := c.args
			if args == nil {
				args = []string{"."}
			}
			w.held(drv(t, append([]string{"check"}, args...)...), c.want)
		})
	}
}

func argoApp(path, helm string) string {
	s := "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: c, namespace: argocd}\nspec:\n  source:\n    repoURL: https://git.example/repo\n    path: " + path + "\n"
	if helm != "" {
		s += "    helm: {" + helm + "}\n"
	}
	return s + "  destination: {namespace: apps}\n"
}

// Promise 2: nothing is fetched. Every URL a kustomization, a chart's
// dependencies or a GitOps source names is refused or not followed, and
// the loopback server it names sees no request.
func TestAttackNothingIsFetched(t *testing.T) {
	cases := map[string]struct {
		build func(w *workspace)
		want  string // "" for a run that goes on with a note
	}{
		"kustomize patch by URL": {func(w *workspace) {
			w.file("k/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
			w.file("k/kustomization.yaml", "resources: [cm.yaml]\npatches:\n- path: "+w.url+"/patch.yaml\n")
		}, "drvcheck renders without the network"},
		"kustomize generator file by URL": {func(w *workspace) {
			w.file("k/kustomization.yaml", "configMapGenerator:\n- name: g\n  files: ["+w.url+"/f.txt]\n")
		}, "drvcheck renders without the network"},
		"kustomize openapi by URL": {func(w *workspace) {
			w.file("k/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
			w.file("k/kustomization.yaml", "resources: [cm.yaml]\nopenapi:\n  path: "+w.url+"/schema.json\n")
		}, "drvcheck renders without the network"},
		"kustomize resource by URL": {func(w *workspace) {
			w.file("k/kustomization.yaml", "resources: ["+w.url+"/cm.yaml]\n")
		}, "is a remote base"},
		"Helm dependency from a repository": {func(w *workspace) {
			w.file("charts/c/Chart.yaml", "apiVersion: v2\nname: c\nversion: 0.1.0\ndependencies:\n- name: dep\n  version: 1.0.0\n  repository: "+w.url+"\n")
		}, "dependency dep ("},
		"Argo CD values file by URL": {func(w *workspace) {
			w.chart("charts/c", nil)
			w.file("app.yaml", argoApp("charts/c", "valueFiles: ["+w.url+"/values.yaml]"))
		}, "a values file at a URL"},
		"Argo CD chart from a Helm repository": {func(w *workspace) {
			w.file("nodes.yaml", "")
			w.file("app.yaml", "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: c, namespace: argocd}\nspec:\n  source: {repoURL: '"+w.url+"', chart: gpu-operator, targetRevision: v26.7.0}\n  destination: {namespace: x}\n")
		}, ""},
		"Flux chart from a Helm repository": {func(w *workspace) {
			w.file("nodes.yaml", "")
			w.file("hr.yaml", "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: c, namespace: flux}\nspec:\n  chart:\n    spec: {chart: gpu-operator, sourceRef: {kind: HelmRepository, name: nvidia}}\n")
			w.file("repo.yaml", "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata: {name: nvidia, namespace: flux}\nspec: {url: '"+w.url+"'}\n")
		}, ""},
		"pushgateway from the repository's config": {func(w *workspace) {
			w.file("nodes.yaml", "")
			w.file(".drvcheck.yaml", "pushgateway: "+w.url+"\n")
		}, "pushgateway: only the command line may set it"},
		"report from the repository's config": {func(w *workspace) {
			w.file("nodes.yaml", "")
			w.file(".drvcheck.yaml", "report: [json=../home/.bashrc]\n")
		}, "report: only the command line may set it"},
		"rules reaching out through the repository's config": {func(w *workspace) {
			w.file("nodes.yaml", "")
			w.file(".drvcheck.yaml", "allow-net: [127.0.0.1]\n")
		}, "allow-net: only the command line may set it"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			w := newWorkspace(t).enter()
			c.build(w)
			r := drv(t, "check", ".")
			if c.want == "" {
				if r.code == exitError {
					t.Errorf("exit 2: %s", r.stderr)
				}
				w.noLeak(r)
				return
			}
			w.held(r, c.want)
		})
	}
}

// Promise 3: every render is bounded. Each bomb ends in exit 2 with one
// line naming the chart or kustomization and the limit, within 30 s and
// 1 GiB for drvcheck and its sandbox together, with the default flags.
// The real binary runs, so that the time and memory are a user's.
func TestAttackEveryRenderIsBounded(t *testing.T) {
	bin := builtDrvcheck(t)
	cases := map[string]struct {
		build func(w *workspace)
		want  string
	}{
		"nested range": {func(w *workspace) {
			w.chart("charts/c", map[string]string{"cm.yaml": "{{ range until 100000 }}{{ range until 100000 }}xxxxxxxx{{ end }}{{ end }}"})
		}, "charts/c/Chart.yaml: "},
		"exponential include": {func(w *workspace) {
			var b strings.Builder
			b.WriteString(`{{ define "a0" }}xxxxxxxxxxxxxxxx{{ end }}`)
			for i := 1; i <= 40; i++ {
				fmt.Fprintf(&b, `{{ define "a%d" }}{{ include "a%d" . }}{{ include "a%d" . }}{{ end }}`, i, i-1, i-1)
			}
			w.chart("charts/c", map[string]string{"_h.tpl": b.String(), "cm.yaml": `{{ include "a40" . }}`})
		}, "charts/c/Chart.yaml: "},
		"tpl recursion through a value": {func(w *workspace) {
			w.chart("charts/c", map[string]string{"cm.yaml": "{{ tpl .Values.r . }}"})
			w.file("charts/c/values.yaml", "r: '{{ tpl .Values.r . }}'\n")
		}, "charts/c/Chart.yaml: "},
		"repeat": {func(w *workspace) {
			w.chart("charts/c", map[string]string{"cm.yaml": `{{ repeat 2000000000 "x" }}`})
		}, "charts/c/Chart.yaml: used more than"},
		"values file that is /dev/zero": {func(w *workspace) {
			w.chart("charts/c", nil)
			w.link("/dev/zero", "charts/c/zero.yaml")
			w.file("app.yaml", argoApp("charts/c", "valueFiles: [zero.yaml]"))
		}, "zero.yaml: not read"},
		"300 MB patch": {func(w *workspace) {
			w.file("k/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
			w.file("k/kustomization.yaml", "resources: [cm.yaml]\npatches: [{path: big.yaml}]\n")
			if err := os.Truncate(w.file("k/big.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {a: "), 300<<20); err != nil {
				t.Fatal(err)
			}
		}, "--max-file-size"},
		"a 2 MB patch on 500 Deployments": {func(w *workspace) {
			var b strings.Builder
			for i := range 500 {
				fmt.Fprintf(&b, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d%d}\nspec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: i}]}}}\n", i)
			}
			w.file("k/deploys.yaml", b.String())
			w.file("k/patch.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: any\n  annotations:\n    blob: "+strings.Repeat("x", 2<<20)+"\n")
			w.file("k/kustomization.yaml", "resources: [deploys.yaml]\npatches:\n- path: patch.yaml\n  target: {kind: Deployment}\n")
		}, "k/kustomization.yaml: "},
		"kustomize resource that is a named pipe": {func(w *workspace) {
			w.file("k/kustomization.yaml", "resources: [pipe.yaml]\n")
			if err := syscall.Mkfifo(filepath.Join(w.repo, "k", "pipe.yaml"), 0o644); err != nil {
				t.Skip("no named pipes:", err)
			}
		}, "not a regular file (a named pipe)"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // bounded by wall time; the two cores share the bombs
			w := newWorkspace(t)
			c.build(w)
			start := time.Now()
			cmd := exec.Command(bin, "check", ".")
			cmd.Dir, cmd.Env = w.repo, []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH")}
			var out, errOut strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errOut
			err := cmd.Run()
			took := time.Since(start)
			code := cmd.ProcessState.ExitCode()
			// ru_maxrss of a reaped child counts its own reaped children:
			// the sandbox's peak is in it.
			rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
			t.Logf("%s: exit %d in %s, peak %d MiB: %s", name, code, took.Round(time.Millisecond), rss>>20, strings.TrimSpace(errOut.String()))
			w.held(result{out.String(), errOut.String(), code}, c.want)
			if err == nil || took > 30*time.Second || rss > 1<<30 {
				t.Errorf("took %s, peak %d MiB; want exit 2 within 30 s and 1 GiB", took, rss>>20)
			}
		})
	}
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// builtDrvcheck is this package built once, for the tests that measure a
// user's process.
func builtDrvcheck(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "drvcheck-attack-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "drvcheck")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// Promise 4: a report never replaces what is not a regular file. A device
// is written in place and its error is the run's (internal/report holds
// the descriptor links and the links out of the working folder).
func TestAttackReportToADevice(t *testing.T) {
	info, err := os.Stat("/dev/full")
	if err != nil {
		t.Skip("no /dev/full here")
	}
	r := drv(t, "check", labDir, "--report", "json=/dev/full")
	after, err := os.Stat("/dev/full")
	if r.code != exitError || !strings.Contains(r.stderr, "/dev/full: no space left on device") || err != nil || after.Mode() != info.Mode() {
		t.Errorf("exit %d %q; /dev/full %v, %v", r.code, r.stderr, after, err)
	}
}

// A chart with a link inside the repository renders, and says nothing of
// it: Helm's LoadDir logged "found symbolic link" lines to stderr; the
// chart is loaded through the opener now, and the sandbox's own stderr
// never reaches the user.
func TestAttackNoLibraryLogLines(t *testing.T) {
	w := newWorkspace(t).enter()
	w.chart("charts/c", map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ .Files.Get \"name.txt\" | trim }}}\n"})
	w.file("shared/name.txt", "shared\n")
	w.link(filepath.Join(w.repo, "shared", "name.txt"), "charts/c/name.txt")
	r := drv(t, "check", ".", "--fail-on", "none")
	if r.code != 0 || strings.Contains(r.stderr, "INFO") || strings.Contains(r.stderr, "symbolic") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	w.noLeak(r)
}

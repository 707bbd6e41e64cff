package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/drvcheck/drvcheck/internal/registry/registrytest"
	"github.com/drvcheck/drvcheck/internal/testcluster"
)

// repoRoot is the repository root, from this package's folder.
var repoRoot = filepath.Join("..", "..")

// docFiles are the documentation files, relative to the repository root:
// the README, the changelog, the contributors' guide and every page under
// docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "CHANGELOG.md", "CONTRIBUTING.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		rel, err := filepath.Rel(repoRoot, p)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// example is one `$ drvcheck …` line of a console block of a documentation
// file and the output lines it shows.
type example struct {
	file string
	line int
	args []string
	want []string
}

func (ex example) String() string { return fmt.Sprintf("%s:%d", ex.file, ex.line) }

// consoleExamples are the console blocks of file (relative to the
// repository root), each a list of examples.
func consoleExamples(t *testing.T, file string) [][]example {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, file))
	if err != nil {
		t.Fatal(err)
	}
	var blocks [][]example
	in := false
	for i, l := range strings.Split(string(data), "\n") {
		switch {
		case l == "```console":
			in = true
			blocks = append(blocks, nil)
		case in && l == "```":
			in = false
		case in && strings.HasPrefix(l, "$ drvcheck "):
			cmd, _, _ := strings.Cut(strings.TrimPrefix(l, "$ drvcheck "), "   #")
			cmd, _, _ = strings.Cut(cmd, "  #")
			b := &blocks[len(blocks)-1]
			*b = append(*b, example{file: file, line: i + 1, args: strings.Fields(cmd)})
		case in:
			b := blocks[len(blocks)-1]
			if len(b) == 0 {
				t.Fatalf("%s:%d: output before any command", file, i+1)
			}
			b[len(b)-1].want = append(b[len(b)-1].want, l)
		}
	}
	return blocks
}

// shows says whether got holds the lines want, in order, each whole: "…"
// or "..." stands for any text, and a line of it alone for any lines.
func shows(got string, want []string) bool {
	lines := strings.Split(got, "\n")
	at := 0
	for _, w := range want {
		if w == "…" || w == "..." {
			continue // any lines: the next wanted line is searched for
		}
		re := regexp.MustCompile("^" + strings.NewReplacer(`\.\.\.`, ".*", `…`, ".*").Replace(regexp.QuoteMeta(w)) + "$")
		for at < len(lines) && !re.MatchString(lines[at]) {
			at++
		}
		if at == len(lines) {
			return false
		}
		at++
	}
	return true
}

// Every command example of the README and of the other documentation files
// runs, from the repository root, and shows the lines the file shows.
// REGISTRY is a local registry holding the lab's images; the examples of a
// live cluster run against the real control plane holding the lab's nodes,
// its kubeconfig's context named prod.
func TestREADMEAndDocsExamplesRun(t *testing.T) {
	var blocks [][]example
	for _, f := range docFiles(t) {
		blocks = append(blocks, consoleExamples(t, f)...)
	}
	// The README's quick start and the pages' examples moved out of it:
	// fewer means a block lost its console fence and runs no more.
	if readme := consoleExamples(t, "README.md"); len(readme) < 1 || len(blocks) < 10 {
		t.Fatalf("%d console blocks in the README, %d in all", len(readme), len(blocks))
	}
	isolateDockerConfig(t, "{}")
	reg := registrytest.New(t)
	reg.Push(t, "nvidia/driver", "550-5.15.0-119-generic-ubuntu22.04", "535-5.15.0-107-generic-ubuntu22.04",
		"550-6.8.0-45-generic-ubuntu24.04", "570.86.15-ubuntu22.04")
	var cluster []example
	t.Chdir(repoRoot)
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	cache := "--cache-dir=" + t.TempDir()
	for _, b := range blocks {
		for _, ex := range b {
			if live(ex) {
				cluster = append(cluster, ex)
				continue
			}
			runExample(t, ex, reg.Host, cache)
		}
	}
	if len(cluster) == 0 {
		return
	}
	testcluster.Require(t)
	c := testcluster.Start(t, testcluster.Options{})
	kubectl(t, c, "apply", "-f", filepath.Join("testdata", "lab", "k8s", "nodes.yaml"), "-f", filepath.Join("testdata", "lab", "k8s", "node3.yaml"))
	kc := contextNamed(t, c.Kubeconfig, "prod")
	t.Setenv("KUBECONFIG", kc)
	for _, ex := range cluster {
		runExample(t, ex, reg.Host, cache)
	}
}

// live: an example that reads the cluster: scan, nodes from the cluster,
// or audit and tag given no PATH (an argument that is no flag's value).
func live(ex example) bool {
	if ex.args[0] == "scan" || slices.Contains(ex.args, "--nodes-from-cluster") {
		return true
	}
	if ex.args[0] != "audit" && ex.args[0] != "tag" {
		return false
	}
	for i, a := range ex.args[1:] {
		if _, err := os.Stat(a); err == nil && !strings.HasPrefix(ex.args[i], "-") {
			return false // a PATH, not --matrix's file
		}
	}
	return true
}

func runExample(t *testing.T, ex example, registry, cache string) {
	t.Helper()
	args := make([]string, len(ex.args))
	for i, a := range ex.args {
		args[i] = strings.ReplaceAll(a, "REGISTRY", registry)
	}
	if args[0] != "verify" && args[0] != "report" { // they read no registry
		args = append(args, cache)
	}
	r := drv(t, args...)
	got := strings.ReplaceAll(r.stdout+r.stderr, registry, "REGISTRY")
	wantsError := len(ex.want) > 0 && strings.HasPrefix(ex.want[0], "drvcheck: ")
	if r.code == exitError && !wantsError || !shows(got, ex.want) {
		t.Errorf("%s: drvcheck %s: exit %d, and the output does not show\n%s\n--- it is\n%s",
			ex, strings.Join(ex.args, " "), r.code, strings.Join(ex.want, "\n"), got)
	}
}

// contextNamed writes a copy of kubeconfig whose one context, the
// current one, is called name.
func contextNamed(t *testing.T, kubeconfig, name string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cur := cfg.Contexts[cfg.CurrentContext]
	for k, c := range cfg.Contexts { // a kubeconfig without a current context has one
		if cur == nil {
			cur = c
		}
		delete(cfg.Contexts, k)
	}
	if cur == nil {
		t.Fatalf("%s holds no context", kubeconfig)
	}
	cfg.Contexts[name] = cur
	cfg.CurrentContext = name
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestShows(t *testing.T) {
	got := "a\nb 1.2ms\nc\nd\n"
	for want, ok := range map[string]bool{
		"a\nc":       true,
		"b …\nd":     true,
		"a\n…\nd":    true,
		"c\na":       false,
		"b":          false,
		"x":          false,
		"a\nb ...\n": true,
	} {
		if shows(got, strings.Split(strings.TrimSuffix(want, "\n"), "\n")) != ok {
			t.Errorf("shows(%q) != %v", want, ok)
		}
	}
}

// The README is a front page: its contents line links every section of
// it, and it links every page the reference moved to, so that nothing
// documented is out of a reader's reach.
func TestREADMEContents(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	lines := strings.Split(strings.TrimSuffix(readme, "\n"), "\n")
	// The bound (41): past it the README is a reference again.
	if len(lines) > 300 {
		t.Errorf("the README has %d lines; at most 300, the rest in docs/", len(lines))
	}
	contents := ""
	for _, l := range lines {
		if strings.HasPrefix(l, "**Contents:** ") {
			contents = l
		}
	}
	for _, l := range lines {
		if h, ok := strings.CutPrefix(l, "## "); ok && !strings.Contains(contents, "["+strings.ReplaceAll(h, "`", "")+"](#") {
			t.Errorf("the contents line does not link %q", h)
		}
	}
	for _, f := range docFiles(t) {
		if f != "README.md" && !strings.Contains(readme, "]("+f+")") && !strings.Contains(readme, "]("+f+"#") {
			t.Errorf("the README does not link %s", f)
		}
	}
}

// The README's commands table has a row for every command drvcheck has,
// and so has docs/commands.md, the commands in detail.
func TestREADMECommands(t *testing.T) {
	for _, f := range []string{"README.md", "docs/commands.md"} {
		data, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range commands {
			if !strings.Contains(string(data), "\n| `drvcheck "+c.name) {
				t.Errorf("%s has no row for drvcheck %s", f, c.name)
			}
		}
	}
}

package main

import (
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

// example is one `$ drvcheck …` line of a console block of the README and
// the output lines it shows.
type example struct {
	line int
	args []string
	want []string
}

// readmeExamples are the README's console blocks, each a list of
// examples.
func readmeExamples(t *testing.T) [][]example {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
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
			*b = append(*b, example{line: i + 1, args: strings.Fields(cmd)})
		case in:
			b := blocks[len(blocks)-1]
			if len(b) == 0 {
				t.Fatalf("README.md:%d: output before any command", i+1)
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

// Every command example of the README runs, from the repository root, and
// shows the lines the README shows. REGISTRY is a local registry holding
// the lab's images; the examples of a live cluster run against the real
// control plane holding the lab's nodes, its kubeconfig's context named
// prod.
func TestREADMEExamplesRun(t *testing.T) {
	blocks := readmeExamples(t)
	if len(blocks) < 6 {
		t.Fatalf("%d console blocks in the README", len(blocks))
	}
	isolateDockerConfig(t, "{}")
	reg := registrytest.New(t)
	reg.Push(t, "nvidia/driver", "550-5.15.0-119-generic-ubuntu22.04", "535-5.15.0-107-generic-ubuntu22.04",
		"550-6.8.0-45-generic-ubuntu24.04", "570.86.15-ubuntu22.04")
	var cluster []example
	t.Chdir(filepath.Join("..", ".."))
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
	if args[0] != "verify" {
		args = append(args, cache)
	}
	r := drv(t, args...)
	got := strings.ReplaceAll(r.stdout+r.stderr, registry, "REGISTRY")
	wantsError := len(ex.want) > 0 && strings.HasPrefix(ex.want[0], "drvcheck: ")
	if r.code == exitError && !wantsError || !shows(got, ex.want) {
		t.Errorf("README.md:%d: drvcheck %s: exit %d, and the output does not show\n%s\n--- it is\n%s",
			ex.line, strings.Join(ex.args, " "), r.code, strings.Join(ex.want, "\n"), got)
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

// The README's contents line links every section.
func TestREADMEContents(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	contents := ""
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "**Contents:** ") {
			contents = l
		}
	}
	for _, l := range strings.Split(string(data), "\n") {
		if h, ok := strings.CutPrefix(l, "## "); ok && !strings.Contains(contents, "["+strings.ReplaceAll(h, "`", "")+"](#") {
			t.Errorf("the contents line does not link %q", h)
		}
	}
}

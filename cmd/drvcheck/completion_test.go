package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The bash completion, sourced into a real bash, completes commands and
// each command's own flags.
func TestBashCompletion(t *testing.T) {
	r := drv(t, "completion", "bash")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	script := filepath.Join(t.TempDir(), "drvcheck.bash")
	if err := os.WriteFile(script, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	complete := func(words ...string) string {
		t.Helper()
		line := `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _drvcheck; echo "${COMPREPLY[*]}"`
		out, err := exec.Command("bash", append([]string{"-c", line, "bash", script}, words...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "nodes.yaml"), "")
	for words, want := range map[string]string{
		"drvcheck ch":                    "check",
		"drvcheck check --mat":           "--matrix",
		"drvcheck plan --max-p":          "--max-parallel-upgrades",
		"drvcheck verify --mat":          "",
		"drvcheck help sta":              "status",
		"drvcheck check -o j":            "json junit",
		"drvcheck check --output s":      "sarif",
		"drvcheck check --fail-on w":     "warning",
		"drvcheck check --cuda-compat ":  "minor strict",
		"drvcheck snapshot n":            "nodes",
		"drvcheck snapshot ":             "nodes",
		"drvcheck completion ":           "bash zsh fish",
		"drvcheck scan " + dir + "/no":   "",
		"drvcheck check " + dir + "/no":  dir + "/nodes.yaml",
		"drvcheck plan g0 " + dir + "/n": dir + "/nodes.yaml",
	} {
		fields := strings.Fields(words)
		if strings.HasSuffix(words, " ") {
			fields = append(fields, "") // completing an empty word
		}
		if got := complete(fields...); got != want {
			t.Errorf("%q completes to %q, want %q", words, got, want)
		}
	}
	for _, shell := range []string{"zsh", "fish"} {
		if r := drv(t, "completion", shell); r.code != 0 || !strings.Contains(r.stdout, "drvcheck") {
			t.Errorf("completion %s: exit %d", shell, r.code)
		}
	}
	if r := drv(t, "completion", "tcsh"); r.code != 2 || !strings.Contains(r.stderr, "want bash, zsh or fish") {
		t.Errorf("completion tcsh: exit %d, %q", r.code, r.stderr)
	}
}

// help COMMAND prints that command's usage and flags on stdout, and
// --version is version.
func TestHelpAndVersionFlag(t *testing.T) {
	r := drv(t, "help", "tag")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "Usage: drvcheck tag NODE [PATH...]") || !strings.Contains(r.stdout, "--check") || strings.Contains(r.stdout, "--nodes-from-cluster") {
		t.Errorf("help tag: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := drv(t, "help", "version"); r.code != 0 || strings.Contains(r.stdout, "--matrix") {
		t.Errorf("help version lists flags it does not take:\n%s", r.stdout)
	}
	if v, want := drv(t, "--version"), drv(t, "version"); v.code != 0 || v.stdout != want.stdout || !strings.HasPrefix(v.stdout, "drvcheck ") {
		t.Errorf("--version: %+v, version: %+v", v, want)
	}
}

// help COMMAND groups the flags and ends with two examples; those over the
// repository's testdata run.
func TestHelpExamplesRun(t *testing.T) {
	for _, c := range commands {
		out := drv(t, "help", c.name).stdout
		if !strings.Contains(out, "\nExamples:\n") || c.examples[1] == "" {
			t.Errorf("help %s has no two examples:\n%s", c.name, out)
		}
		if c.name == "check" && (!strings.Contains(out, "\nlimits:\n") || !strings.Contains(out, "\nsources of driver images:\n")) {
			t.Errorf("help check is not grouped:\n%s", out)
		}
	}
	t.Chdir(filepath.Join("..", ".."))
	for _, c := range commands {
		name := c.name
		for _, l := range c.examples {
			args := strings.Fields(l)
			if args[0] != "drvcheck" || !strings.Contains(l, "testdata/") {
				continue
			}
			if name != "verify" && name != "rules" && name != "snapshot" && name != "input" && name != "report" {
				args = append(args, "--cache-dir="+t.TempDir()) // never the user's cache
			}
			if r := drv(t, args[1:]...); r.code == exitError {
				t.Errorf("help %s: %s: exit 2: %s", name, l, r.stderr)
			}
		}
	}
}

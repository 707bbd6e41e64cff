package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func writeConfig(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "repo", DefaultFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// One spelling: the file's keys, the flags and the fields are the same
// options, and a flag on the command line wins over the file.
func TestFlagsWinOverTheFileAndTheFileOverDefaults(t *testing.T) {
	path := writeConfig(t, `
matrix: [m.csv, /abs/m2.csv]
registry-timeout: 45s
offline: true
fail-on: warning
output: json
report: [sarif=out/d.sarif]
exceptions:
- {rule: DRV001, object: Node/a, reason: r}
`)
	file, err := Load(path, true)
	if err != nil {
		t.Fatal(err)
	}
	_, reg, _, _, out := Defaults()
	var rep Reports
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	Bind(fs, &reg, &out, &rep)
	if err := fs.Parse([]string{"--fail-on", "none"}); err != nil {
		t.Fatal(err)
	}
	if err := file.Apply(fs, &reg, &out, &rep); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(path)
	if reg.Matrix[0] != filepath.Join(dir, "m.csv") || reg.Matrix[1] != "/abs/m2.csv" {
		t.Errorf("matrix %q: relative paths are the file's", reg.Matrix)
	}
	if time.Duration(reg.Timeout) != 45*time.Second || !reg.Offline || time.Duration(reg.CacheTTL) != time.Hour {
		t.Errorf("registry %+v", reg)
	}
	if out.FailOn != "none" || out.Output != "json" {
		t.Errorf("output %+v: the flag wins, the file fills the rest", out)
	}
	if rep.Report[0] != "sarif="+filepath.Join(dir, "out/d.sarif") {
		t.Errorf("report %q", rep.Report)
	}
	if len(file.Exceptions) != 1 || file.Exceptions[0].Rule != "DRV001" {
		t.Errorf("exceptions %+v", file.Exceptions)
	}
}

func TestBadFilesNameTheKey(t *testing.T) {
	cases := map[string]string{
		"matrx: [m.csv]\n":                      `unknown key "matrx"`,
		"matrix: m.csv\n":                       "matrix:",
		"registry-timeout: 30\n":                "registry-timeout: want a duration",
		"cache-ttl: soon\n":                     `cache-ttl: "soon" is not a duration`,
		"exceptions: [{rule: X, objekt: a}]\n":  "exceptions:",
		"offline: maybe\n":                      "offline:",
		"- not a mapping\n":                     DefaultFile,
		"kubeconfig: [a, b]\n":                  "kubeconfig:",
		"report: sarif=x\n":                     "report:",
		"fail-on: [error]\n":                    "fail-on:",
		"policy: {a: b}\n":                      "policy:",
		"insecure-registry: [localhost:5000]\n": "",
	}
	for content, want := range cases {
		_, err := Load(writeConfig(t, content), false)
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", content, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: error %v, want it to name %q", content, err, want)
		}
	}
}

func TestNoFileIsNoOptions(t *testing.T) {
	t.Chdir(t.TempDir())
	file, err := Load("", false)
	if err != nil || file.Path != "" {
		t.Fatalf("%+v %v", file, err)
	}
	if _, err := Load("missing.yaml", false); err == nil || !strings.Contains(err.Error(), "config missing.yaml") {
		t.Fatalf("an explicit missing file: %v", err)
	}
}

// Every option can be bound: Bind knows its type, and it has help.
func TestEveryOptionBinds(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	Bind(fs, every...)
	for name := range keys() {
		f := fs.Lookup(name)
		if f == nil || f.Usage == "" {
			t.Errorf("option %s: flag %v without usage", name, f)
		}
	}
}

// A negative duration is refused for every flag alike, from the command
// line or the file.
func TestNegativeDurationsAreRefused(t *testing.T) {
	for _, args := range [][]string{{"--registry-timeout", "-5s"}, {"--cache-ttl", "-1h"}, {"--request-timeout=-1s"}} {
		_, reg, _, cl, _ := Defaults()
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		Bind(fs, &reg, &cl)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		if err := Check(&reg, &cl); err == nil || !strings.Contains(err.Error(), "must not be negative") || !strings.Contains(err.Error(), strings.TrimLeft(strings.Split(args[0], "=")[0], "-")) {
			t.Errorf("%v: %v", args, err)
		}
	}
	file, err := Load(writeConfig(t, "cache-ttl: -2h\n"), false)
	if err != nil {
		t.Fatal(err)
	}
	_, reg, _, _, _ := Defaults()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	Bind(fs, &reg)
	if err := file.Apply(fs, &reg); err != nil {
		t.Fatal(err)
	}
	if err := Check(&reg); err == nil || err.Error() != "--cache-ttl -2h0m0s: must not be negative" {
		t.Errorf("from the file: %v", err)
	}
}

func TestSizes(t *testing.T) {
	l, _, _, _, _ := Defaults()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	Bind(fs, &l)
	if err := fs.Parse([]string{"--max-file-size", "512Mi", "--max-input-size=3000000"}); err != nil {
		t.Fatal(err)
	}
	if l.MaxFileSize != 512<<20 || l.MaxInputSize != 3000000 {
		t.Errorf("sizes %d %d", l.MaxFileSize, l.MaxInputSize)
	}
	for _, bad := range []string{"lots", "-1Mi", "0"} {
		if err := fs.Set("max-file-size", bad); err == nil {
			t.Errorf("size %q accepted", bad)
		}
	}
}

package config

import (
	"os"
	"path/filepath"
	"regexp"
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

// A repository's config may not choose where results go, what is
// trusted or which credentials are used, nor loosen a bound, nor name a
// file outside its repository; --trust-config lets it.
func TestARepositoryConfigIsNotTrusted(t *testing.T) {
	cases := map[string]string{
		"pushgateway: http://collector.example:9091\n": "pushgateway: only the command line may set it",
		"report: [json=out.json]\n":                    "report: only the command line may set it",
		"allow-net: [example.com]\n":                   "allow-net: only the command line may set it",
		"kubeconfig: kc\n":                             "kubeconfig: only the command line may set it",
		"registry-ca: [ca.pem]\n":                      "registry-ca: only the command line may set it",
		"insecure-registry: [r.example]\n":             "insecure-registry: only the command line may set it",
		"timeout: 0s\n":                                "timeout: a repository's config may tighten this bound, not loosen it (now 2m0s)",
		"timeout: 1h\n":                                "timeout: a repository's config may tighten",
		"max-input-size: 8Gi\n":                        "max-input-size: a repository's config may tighten",
		"helm-values: [../../home/.kube/config]\n":     "helm-values: " + filepath.Join("..", "..", "home", ".kube", "config"),
		"matrix: [/etc/passwd]\n":                      "matrix: /etc/passwd is outside the repository",
		"timeout: 30s\nmatrix: [m.csv]\n":              "",
		"helm-values: [chart=values/prod.yaml]\n":      "",
	}
	for content, want := range cases {
		path := writeConfig(t, content)
		for _, trusted := range []bool{false, true} {
			file, err := Load(path, trusted)
			if err != nil {
				t.Fatal(err)
			}
			l, reg, rules, cl, out := Defaults()
			run := Run{Deadline: Duration(DefaultDeadline)}
			var rep Reports
			var op Operator
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			Bind(fs, &run, &l, &reg, &rules, &cl, &out, &rep, &op)
			err = file.Apply(fs, &run, &l, &reg, &rules, &cl, &out, &rep, &op)
			switch {
			case trusted || want == "":
				if err != nil {
					t.Errorf("%q trusted=%v: %v", content, trusted, err)
				}
			case err == nil || !strings.Contains(err.Error(), want):
				t.Errorf("%q: %v, want it to contain %q", content, err, want)
			}
		}
	}
}

// A key given twice is an error, at any depth, as in manifests: the last
// one silently winning would hide a change in review.
func TestDuplicateKeys(t *testing.T) {
	for _, content := range []string{
		"matrix: [a.csv]\nmatrix: [b.csv]\n",
		"exceptions:\n- rule: DRV001\n  rule: DRV002\n  object: Node/a\n  reason: r\n",
	} {
		if _, err := Load(writeConfig(t, content), false); err == nil || !strings.Contains(err.Error(), "already set") && !strings.Contains(err.Error(), "duplicate") {
			t.Errorf("%q: %v", content, err)
		}
	}
}

// The config is read through the opener: a .drvcheck.yaml that links out
// of its repository is refused, and its target never reaches the error.
func TestConfigLinkedOutOfTheRepository(t *testing.T) {
	base := t.TempDir()
	secret := filepath.Join(base, "home", "token.yaml")
	repo := filepath.Join(base, "repo")
	for _, d := range []string{filepath.Dir(secret), filepath.Join(repo, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(secret, []byte("CANARY: value\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(repo, DefaultFile)); err != nil {
		t.Fatal(err)
	}
	t.Chdir(repo)
	_, err := Load("", false)
	if err == nil || !strings.Contains(err.Error(), "outside the repository") || strings.Contains(err.Error(), "CANARY") {
		t.Errorf("%v", err)
	}
}

// docs/configuration.md lists every key a .drvcheck.yaml may hold, no more.
func TestConfigurationDocListsTheKeys(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start := strings.Index(text, "`.drvcheck.yaml` holds defaults for the option flags below")
	end := strings.Index(text[max(start, 0):], "and the list of [exceptions]")
	if start < 0 || end < 0 {
		t.Fatal("the paragraph of config keys is gone from docs/configuration.md")
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z-]+)`").FindAllStringSubmatch(text[start:start+end], -1) {
		listed[m[1]] = true
	}
	for k := range keys() {
		if !listed[k] {
			t.Errorf("docs/configuration.md does not list %s", k)
		}
		delete(listed, k)
	}
	for k := range listed {
		t.Errorf("docs/configuration.md lists %s, which is no key", k)
	}
}

// --context is given once or more; a config file writes it as one name
// or a list, and anything else is refused.
func TestRepeated(t *testing.T) {
	var r Repeated
	if err := r.Set("eu-1"); err != nil || r.Set("us-1") != nil || r.String() != "eu-1,us-1" {
		t.Errorf("flags: %v %v", r, err)
	}
	if r.Set("") == nil {
		t.Error("an empty name is taken")
	}
	for raw, want := range map[string]string{`"prod"`: "prod", `["eu-1", "us-1"]`: "eu-1,us-1"} {
		var r Repeated
		if err := r.UnmarshalJSON([]byte(raw)); err != nil || r.String() != want {
			t.Errorf("%s: %v %v", raw, r, err)
		}
	}
	if err := new(Repeated).UnmarshalJSON([]byte(`{"a": 1}`)); err == nil {
		t.Error("an object is taken")
	}
}

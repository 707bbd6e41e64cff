package render

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/config"
	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/internal/runner"
	"github.com/drvcheck/drvcheck/policy"
)

func render(t *testing.T, f func(*bytes.Buffer, Report, Options) error, r Report, opt Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := f(&buf, r, opt); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func asWriter(f renderer) func(*bytes.Buffer, Report, Options) error {
	return func(b *bytes.Buffer, r Report, o Options) error { return f(b, r, o) }
}

func TestGitHubCommands(t *testing.T) {
	r, opt := fixture(t)
	out := render(t, asWriter(GitHub), r, opt)
	want := strings.Join([]string{
		"::error file=k8s/pool a.yaml,line=14,title=DRV010 unschedulable-affinity::Deployment/ml/trainer: matches none of 4 nodes",
		"::error file=k8s/nodes.yaml,line=1,title=DRV001 missing-driver-image::Node/gpu-1: no image",
		"::notice file=/elsewhere/x.yaml,line=3,title=CUSTOM1 custom::Node/gpu-1: note this",
		"::warning title=DRV001 missing-driver-image::Node/gpu-1: from stdin",
		"::warning title=DRV001 missing-driver-image::Node/gpu-1: live",
		"::notice title=drvcheck::1 finding(s) suppressed by exceptions (drvcheck.io/ignore or .drvcheck.yaml)",
		"",
	}, "\n")
	if out != want {
		t.Errorf("github output:\n%s\nwant:\n%s", out, want)
	}
}

func TestGitHubEscaping(t *testing.T) {
	f := policy.Finding{Rule: "X1", Title: "a,b:c", Severity: "error", Object: object.Ref{Kind: "Pod", Namespace: "n", Name: "p"},
		Message: "100% bad\r\nsecond line, with: colon", File: "dir,1/a:b.yaml", Line: 2}
	got := githubCommand(f, Options{})
	want := "::error file=dir%2C1/a%3Ab.yaml,line=2,title=X1 a%2Cb%3Ac::Pod/n/p: 100%25 bad%0D%0Asecond line, with: colon"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// The acceptance test: -o github on the lab prints one annotation
// per finding, each with a file and a line.
func TestGitHubLab(t *testing.T) {
	lab := filepath.Join("..", "..", "testdata", "lab")
	res, err := runner.Check(context.Background(), runner.Config{
		Paths: []string{lab}, Registry: config.Registry{Matrix: []string{filepath.Join(lab, "support-matrix.csv")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := filepath.Abs(".")
	out := render(t, asWriter(GitHub), Report{Findings: res.Findings}, Options{Dir: wd, Root: RepoRoot(wd)})
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(res.Findings) == 0 || len(lines) != len(res.Findings) {
		t.Fatalf("%d annotations for %d findings:\n%s", len(lines), len(res.Findings), out)
	}
	re := regexp.MustCompile(`^::(error|warning|notice) file=testdata/lab/k8s/[^,]+\.yaml,line=[1-9][0-9]*,title=DRV\d{3} [a-z-]+::.+$`)
	for _, l := range lines {
		if !re.MatchString(l) {
			t.Errorf("annotation %q lacks file or line", l)
		}
	}
}

func TestJUnit(t *testing.T) {
	r, opt := fixture(t)
	out := render(t, asWriter(JUnit), r, opt)
	var doc junitSuites
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, out)
	}
	// One suite per rule (DRV001, DRV010, CUSTOM1), each ending with one
	// passing case for the objects left: DRV001 fails on the node (3
	// findings, one case); DRV010 fails on the Deployment and is
	// suppressed on the budget; CUSTOM1 fails on the node. 4 + 3 cases.
	if len(doc.Suites) != 3 || doc.Tests != 7 || doc.Failures != 3 || doc.Skipped != 1 {
		t.Fatalf("suites=%d tests=%d failures=%d skipped=%d, want 3, 7, 3 and 1\n%s", len(doc.Suites), doc.Tests, doc.Failures, doc.Skipped, out)
	}
	cases := map[string]junitCase{}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			cases[c.Classname+" "+c.Name] = c
		}
	}
	c := cases["DRV001 Node/gpu-1"]
	if c.Failure == nil || strings.Count(c.Failure.Body, "\n") != 3 || c.Failure.Type != "error" || c.Failure.Message != "3 finding(s)" {
		t.Errorf("Node DRV001 case = %+v", c)
	}
	// Each message is written once: in the body, not also in an attribute.
	for _, f := range r.Findings {
		if n := strings.Count(out, xmlEscaped(f.Message)); n != 1 {
			t.Errorf("%q written %d times", f.Message, n)
		}
	}
	if c := cases["DRV010 Deployment/ml/trainer"]; c.Failure == nil || c.File != "k8s/pool a.yaml" || c.Line != 14 {
		t.Errorf("Deployment DRV010 case = %+v", c)
	}
	if c, ok := cases["DRV001 2 other object(s) pass"]; !ok || c.Failure != nil || c.Skipped != nil {
		t.Errorf("DRV001's passing case = %+v (%v)", c, ok)
	}
	if c := cases["DRV010 PodDisruptionBudget/ml/trainer-pdb"]; c.Skipped == nil ||
		!strings.Contains(c.Skipped.Message, "budget is intended") {
		t.Errorf("suppressed case = %+v", c)
	}
}

func xmlEscaped(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// The size grows with findings, not with objects times rules.
func TestJUnitSizeFollowsFindings(t *testing.T) {
	var r Report
	for i := range 12000 {
		r.Objects = append(r.Objects, object.Ref{Kind: "Deployment", Namespace: "ml", Name: fmt.Sprintf("w%05d", i)})
	}
	for i := range 14 {
		r.Rules = append(r.Rules, policy.Rule{ID: fmt.Sprintf("DRV%03d", i), Title: "t", Severity: policy.Error})
	}
	for i := range 100 {
		r.Findings = append(r.Findings, policy.Finding{Rule: "DRV001", Title: "t", Severity: policy.Error, Object: r.Objects[i*7], Message: "m"})
	}
	out := render(t, asWriter(JUnit), r, Options{})
	if n := strings.Count(out, "<testcase "); n != 114 || len(out) > 100<<10 {
		t.Fatalf("%d test cases, %d bytes", n, len(out))
	}
}

func TestMarkdown(t *testing.T) {
	r, opt := fixture(t)
	r.Findings[0].Message = "a | b <script>\nnext"
	out := render(t, asWriter(Markdown), r, opt)
	for _, want := range []string{
		"**❌ 2 errors** · 2 errors, 2 warnings, 1 suppressed · 1 GPU node, 3 objects checked",
		"| ❌ | DRV010 unschedulable-affinity | Deployment/ml/trainer | `k8s/pool a.yaml:14` | a \\| b &lt;script&gt; next |",
		"<details><summary>1 finding suppressed by exceptions</summary>",
		"| DRV010 unschedulable-affinity | PodDisruptionBudget/ml/trainer-pdb | `k8s/pdb.yaml:5` | budget is intended | annotation |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	// Errors before warnings before info, whatever the input order.
	if strings.Index(out, "| ℹ️ |") < strings.Index(out, "| ⚠️ |") || strings.Index(out, "| ⚠️ |") < strings.Index(out, "| ❌ |") {
		t.Errorf("rows not ordered by severity:\n%s", out)
	}
	r.Findings, r.Suppressed, r.Summary = nil, nil, policy.Summary{}
	if out := render(t, asWriter(Markdown), r, opt); !strings.Contains(out, "✅ No findings") || strings.Contains(out, "| Rule |") {
		t.Errorf("empty markdown:\n%s", out)
	}
}

func TestMarkdownCapsRows(t *testing.T) {
	r, opt := fixture(t)
	f := r.Findings[0]
	r.Findings = nil
	for range markdownRows + 5 {
		r.Findings = append(r.Findings, f)
	}
	out := render(t, asWriter(Markdown), r, opt)
	if n := strings.Count(out, "| ❌ |"); n != markdownRows {
		t.Errorf("%d rows, want %d", n, markdownRows)
	}
	if !strings.Contains(out, "… and 5 more") {
		t.Errorf("no overflow line")
	}
}

func TestTextListsSuppressed(t *testing.T) {
	r, opt := fixture(t)
	out := render(t, asWriter(Text), r, opt)
	for _, want := range []string{
		"SUPPRESSED (1)\n  DRV010 unschedulable-affinity  PodDisruptionBudget/ml/trainer-pdb  (annotation: budget is intended)",
		"2 error(s), 2 warning(s), 1 suppressed;",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

func TestJSONSuppressed(t *testing.T) {
	r, opt := fixture(t)
	var doc map[string]any
	if err := json.Unmarshal([]byte(render(t, asWriter(JSON), r, opt)), &doc); err != nil {
		t.Fatal(err)
	}
	sup := doc["suppressed"].([]any)[0].(map[string]any)
	if sup["rule"] != "DRV010" || sup["reason"] != "budget is intended" || sup["source"] != "annotation" {
		t.Errorf("suppressed = %v", sup)
	}
	if doc["summary"].(map[string]any)["suppressed"] != 1.0 {
		t.Errorf("summary = %v", doc["summary"])
	}
	r.Suppressed = nil
	if out := render(t, asWriter(JSON), r, opt); strings.Contains(out, `"suppressed": [`) {
		t.Errorf("empty suppressed list printed:\n%s", out)
	}
}

func TestFormatsRegistered(t *testing.T) {
	want := []string{"github", "html", "json", "junit", "markdown", "prometheus", "sarif", "text"}
	if got := Formats(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Formats() = %v, want %v", got, want)
	}
}

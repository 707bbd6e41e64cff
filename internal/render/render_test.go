package render

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/policy"
)

func sample() Report {
	return Report{
		Findings: []policy.Finding{
			{Rule: "DRV001", Title: "missing-driver-image", Severity: policy.Error, Object: object.Ref{Kind: "Node", Name: "n3"},
				Node: "n3", Tag: "550-k-ubuntu24.04", Message: "no image", File: "k8s/node3.yaml", Line: 1},
			{Rule: "DRV014", Title: "unknown-label-key", Severity: policy.Warning, Object: object.Ref{Kind: "Pod", Namespace: "ns", Name: "p"},
				Message: "typo", File: "p.yaml", Line: 7},
		},
		Summary: policy.Summary{Errors: 1, Warnings: 1, GPUNodes: 4, Objects: 9},
	}
}

func TestJSONShape(t *testing.T) {
	var buf bytes.Buffer
	if err := Render(&buf, "json", sample(), Options{}); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	f := got["findings"].([]any)[0].(map[string]any)
	for _, k := range []string{"rule", "title", "severity", "object", "node", "tag", "message", "file", "line"} {
		if _, ok := f[k]; !ok {
			t.Errorf("finding lacks %q: %v", k, f)
		}
	}
	if _, ok := f["field"]; ok {
		t.Error("internal field path leaked into JSON")
	}
	obj := got["findings"].([]any)[1].(map[string]any)
	if _, ok := obj["node"]; ok {
		t.Error("node printed where it does not apply")
	}
	if s := got["summary"].(map[string]any); s["gpu_nodes"] != 4.0 || s["objects"] != 9.0 || s["errors"] != 1.0 {
		t.Errorf("summary %v", s)
	}
}

func TestJSONEmptyRunPrintsAnEmptyList(t *testing.T) {
	var buf bytes.Buffer
	if err := JSON(&buf, Report{}, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"findings": []`) {
		t.Fatalf("got %s", buf.String())
	}
}

func TestTextGroupsBySeverityAndColoursOnlyWhenAsked(t *testing.T) {
	var plain, color bytes.Buffer
	if err := Render(&plain, "text", sample(), Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Render(&color, "text", sample(), Options{Color: true}); err != nil {
		t.Fatal(err)
	}
	p := plain.String()
	if strings.Contains(p, "\x1b[") {
		t.Fatal("colour without a terminal")
	}
	if !strings.Contains(color.String(), "\x1b[31m") {
		t.Fatal("no colour when asked")
	}
	errs, warns := strings.Index(p, "ERRORS (1)"), strings.Index(p, "WARNINGS (1)")
	if errs < 0 || warns < errs || !strings.Contains(p, "k8s/node3.yaml:1") || !strings.Contains(p, "1 error(s), 1 warning(s)") {
		t.Fatalf("text:\n%s", p)
	}
}

func TestNoColorEnvironment(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if ColorFor(f) {
		t.Fatal("a regular file is not a terminal")
	}
	t.Setenv("NO_COLOR", "1")
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		if ColorFor(tty) {
			t.Fatal("NO_COLOR ignored")
		}
	}
}

func TestUnknownFormat(t *testing.T) {
	if err := Render(&bytes.Buffer{}, "yaml", Report{}, Options{}); err == nil {
		t.Fatal("unknown format accepted")
	}
}

// A manifest's text cannot start a line of its own in the text output: a
// name or message with a newline would let a pull request write a
// ::error workflow command into the CI log.
func TestTextEscapesControlCharacters(t *testing.T) {
	evil := "ok\n::error file=x.yaml::pwned\r"
	r := Report{Findings: []policy.Finding{{Rule: "DRV010", Title: "t", Severity: policy.Error,
		Object: object.Ref{Kind: "Pod", Namespace: "ns", Name: evil}, Message: evil, File: evil, Line: 3}}}
	var b strings.Builder
	if err := Text(&b, r, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") || strings.Contains(line, "\r") {
			t.Fatalf("a manifest's text started a line: %q in\n%s", line, b.String())
		}
	}
	if !strings.Contains(b.String(), `ok\n::error file=x.yaml::pwned\r`) {
		t.Fatalf("the text is not shown escaped:\n%s", b.String())
	}
}

package render

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/config"
	"github.com/drvcheck/drvcheck/internal/runner"
)

func decodeSARIF(t *testing.T, r Report, opt Options) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	if err := SARIF(&buf, r, opt); err != nil {
		t.Fatal(err)
	}
	var log map[string]any
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatalf("sarif is not JSON: %v\n%s", err, buf.String())
	}
	for _, e := range validateSARIF(log) {
		t.Errorf("schema: %s", e)
	}
	for _, e := range sarifSemantics(log) {
		t.Errorf("semantics: %s", e)
	}
	return log
}

// sarifSemantics checks what the schema cannot: each ruleIndex points at
// its ruleId, every physical location has a line >= 1 and a relative URI
// inside the base it names, and every base is defined and ends in a slash.
func sarifSemantics(log map[string]any) []string {
	var errs []string
	for _, run := range log["runs"].([]any) {
		run := run.(map[string]any)
		rules := run["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any)
		bases, _ := run["originalUriBaseIds"].(map[string]any)
		for name, b := range bases {
			if u := b.(map[string]any)["uri"].(string); !strings.HasSuffix(u, "/") {
				errs = append(errs, "base "+name+" does not end in /: "+u)
			}
		}
		results, ok := run["results"].([]any)
		if !ok {
			errs = append(errs, "run has no results array")
		}
		for _, res := range results {
			res := res.(map[string]any)
			i := int(res["ruleIndex"].(float64))
			if i < 0 || i >= len(rules) || rules[i].(map[string]any)["id"] != res["ruleId"] {
				errs = append(errs, "ruleIndex does not point at "+res["ruleId"].(string))
			}
			for _, loc := range res["locations"].([]any) {
				phys, ok := loc.(map[string]any)["physicalLocation"].(map[string]any)
				if !ok {
					continue
				}
				if line := phys["region"].(map[string]any)["startLine"].(float64); line < 1 {
					errs = append(errs, "startLine below 1")
				}
				art := phys["artifactLocation"].(map[string]any)
				uri := art["uri"].(string)
				if base, ok := art["uriBaseId"].(string); ok {
					if _, defined := bases[base]; !defined {
						errs = append(errs, "uriBaseId "+base+" is not defined")
					}
					if strings.HasPrefix(uri, "/") || strings.HasPrefix(uri, "..") {
						errs = append(errs, "relative uri leaves its base: "+uri)
					}
				}
			}
		}
	}
	return errs
}

func results(log map[string]any) []map[string]any {
	var out []map[string]any
	for _, r := range log["runs"].([]any)[0].(map[string]any)["results"].([]any) {
		out = append(out, r.(map[string]any))
	}
	return out
}

func physical(res map[string]any) (uri string, line int, ok bool) {
	loc := res["locations"].([]any)[0].(map[string]any)
	phys, ok := loc["physicalLocation"].(map[string]any)
	if !ok {
		return "", 0, false
	}
	return phys["artifactLocation"].(map[string]any)["uri"].(string),
		int(phys["region"].(map[string]any)["startLine"].(float64)), true
}

func TestSARIFFixture(t *testing.T) {
	r, opt := fixture(t)
	log := decodeSARIF(t, r, opt)
	rules := log["runs"].([]any)[0].(map[string]any)["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any)
	// Two rules with meta, plus CUSTOM1 which has none.
	if len(rules) != 3 {
		t.Fatalf("rules = %d, want 3", len(rules))
	}
	drv010 := rules[1].(map[string]any)
	if drv010["name"] != "unschedulable-affinity" ||
		drv010["defaultConfiguration"].(map[string]any)["level"] != "error" ||
		drv010["help"].(map[string]any)["text"] != "Fix the affinity." {
		t.Errorf("DRV010 descriptor = %v", drv010)
	}
	res := results(log)
	if len(res) != len(r.Findings)+len(r.Suppressed) {
		t.Fatalf("results = %d, want %d", len(res), len(r.Findings)+len(r.Suppressed))
	}
	want := []struct {
		uri  string
		line int
		ok   bool
	}{
		{"k8s/pool%20a.yaml", 14, true},       // inside the root, escaped
		{"k8s/nodes.yaml", 1, true},           // line 0 becomes 1
		{"file:///elsewhere/x.yaml", 3, true}, // outside the root: absolute
		{"", 0, false},                        // standard input
		{"", 0, false},                        // live object, no file
		{"k8s/pdb.yaml", 5, true},             // suppressed
	}
	for i, w := range want {
		uri, line, ok := physical(res[i])
		if uri != w.uri || line != w.line || ok != w.ok {
			t.Errorf("result %d location = %q:%d (%v), want %q:%d (%v)", i, uri, line, ok, w.uri, w.line, w.ok)
		}
	}
	sup, ok := res[5]["suppressions"].([]any)
	if !ok || len(sup) != 1 || sup[0].(map[string]any)["justification"] != "budget is intended" ||
		sup[0].(map[string]any)["kind"] != "inSource" {
		t.Errorf("suppressed result = %v", res[5])
	}
	if _, ok := res[0]["suppressions"]; ok {
		t.Errorf("a reported finding carries suppressions")
	}
	if res[0]["level"] != "error" || res[2]["level"] != "note" {
		t.Errorf("levels = %v, %v", res[0]["level"], res[2]["level"])
	}
}

func TestSARIFNoFindingsIsValid(t *testing.T) {
	r, opt := fixture(t)
	r.Findings, r.Suppressed = nil, nil
	log := decodeSARIF(t, r, opt)
	res, ok := log["runs"].([]any)[0].(map[string]any)["results"].([]any)
	if !ok || len(res) != 0 {
		t.Errorf("results = %v, want an empty array", log["runs"].([]any)[0].(map[string]any)["results"])
	}
}

// The acceptance test: the lab with its support matrix, through the
// runner, gives valid SARIF in which every result has a file and a line.
func TestSARIFLab(t *testing.T) {
	lab := filepath.Join("..", "..", "testdata", "lab")
	res, err := runner.Check(context.Background(), runner.Config{
		Paths:    []string{lab},
		Registry: config.Registry{Matrix: []string{filepath.Join(lab, "support-matrix.csv")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) == 0 {
		t.Fatal("the lab gave no findings; the test would prove nothing")
	}
	wd, _ := filepath.Abs(".")
	opt := Options{Dir: wd, Root: RepoRoot(wd)}
	log := decodeSARIF(t, Report{Findings: res.Findings, Rules: res.Rules, Summary: res.Summary}, opt)
	for _, r := range results(log) {
		uri, line, ok := physical(r)
		if !ok || line < 1 || !strings.HasPrefix(uri, "testdata/lab/k8s/") {
			t.Errorf("result %v: location %q:%d (%v)", r["ruleId"], uri, line, ok)
		}
	}
}

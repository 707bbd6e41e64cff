package report

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/drvcheck/drvcheck/internal/cluster"
	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/policy"
)

func TestParse(t *testing.T) {
	got, err := Parse([]string{"sarif=a.sarif", "configmap=drvcheck/drvcheck-report", "prometheus=x=y.prom"})
	if err != nil || len(got) != 3 || !got[1].ConfigMap() || got[2].Path != "x=y.prom" {
		t.Fatalf("Parse: %+v %v", got, err)
	}
	for spec, want := range map[string]string{
		"sarif":                   "want FORMAT=FILE",
		"pdf=x.pdf":               `format "pdf" is not one of`,
		"configmap=report":        "want configmap=NAMESPACE/NAME",
		"configmap=Bad_NS/report": `namespace "Bad_NS"`,
		"configmap=ns/Bad_Name":   `ConfigMap name "Bad_Name"`,
	} {
		if _, err := Parse([]string{spec}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q): %v, want %q", spec, err, want)
		}
	}
}

// The ConfigMap keeps its metrics whatever the size of the report, and
// names what it left out.
func TestConfigMapDataFits(t *testing.T) {
	rep := render.Report{Run: render.Run{ExitCode: 1, Finished: time.Unix(0, 0)}}
	long := strings.Repeat("x", 2000)
	for range 1000 {
		rep.Findings = append(rep.Findings, policy.Finding{Rule: "DRV001", Severity: "error", Message: long})
	}
	data := configMapData(rep, render.Options{})
	if _, ok := data["report.json"]; ok || data["metrics.prom"] == "" || !strings.Contains(data["omitted"], "report.json (") ||
		size(data) > cluster.MaxReport || data["exit-code"] != "1" || data["finished"] != "1970-01-01T00:00:00Z" {
		t.Errorf("keys %d bytes, omitted %q", size(data), data["omitted"])
	}
	small := configMapData(render.Report{Run: render.Run{ExitCode: 0}}, render.Options{})
	if small["report.json"] == "" || small["summary.md"] == "" || small["omitted"] != "" {
		t.Errorf("a small report lost keys: %v", small)
	}
}

func TestReplaceFileKeepsTheOldOnFailure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "drvcheck.prom")
	if err := ReplaceFile(path, func(w io.Writer) error { _, err := io.WriteString(w, "old\n"); return err }); err != nil {
		t.Fatal(err)
	}
	err := ReplaceFile(path, func(w io.Writer) error { _, _ = io.WriteString(w, "half"); return errors.New("broke") })
	data, _ := os.ReadFile(path)
	info, _ := os.Stat(path)
	entries, _ := os.ReadDir(filepath.Dir(path))
	if err == nil || string(data) != "old\n" || info.Mode().Perm() != 0o644 || len(entries) != 1 {
		t.Errorf("err %v, content %q, mode %v, %d files", err, data, info.Mode(), len(entries))
	}
}

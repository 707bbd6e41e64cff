package report

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
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
	if _, ok := data["report.json"]; ok || data["metrics.prom"] == "" || !strings.Contains(data["omitted"], "report.html (") || !strings.Contains(data["omitted"], "report.json (") ||
		size(data) > cluster.MaxReport || data["exit-code"] != "1" || data["finished"] != "1970-01-01T00:00:00Z" {
		t.Errorf("keys %d bytes, omitted %q", size(data), data["omitted"])
	}
	small := configMapData(render.Report{Run: render.Run{ExitCode: 0}}, render.Options{})
	if small["report.json"] == "" || small["summary.md"] == "" || !strings.HasPrefix(small["report.html"], "<!doctype html>") || small["omitted"] != "" {
		t.Errorf("a small report lost keys: %v", small)
	}
}

func TestReplaceFileKeepsTheOldOnFailure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "drvcheck.prom")
	if err := ReplaceFile(context.Background(), path, func(w io.Writer) error { _, err := io.WriteString(w, "old\n"); return err }); err != nil {
		t.Fatal(err)
	}
	err := ReplaceFile(context.Background(), path, func(w io.Writer) error { _, _ = io.WriteString(w, "half"); return errors.New("broke") })
	data, _ := os.ReadFile(path)
	info, _ := os.Stat(path)
	entries, _ := os.ReadDir(filepath.Dir(path))
	if err == nil || string(data) != "old\n" || info.Mode().Perm() != 0o644 || len(entries) != 1 {
		t.Errorf("err %v, content %q, mode %v, %d files", err, data, info.Mode(), len(entries))
	}
}

// A report never replaces what is not a regular file: a device is written
// in place (/dev/full's error is the run's), a descriptor's name is that
// descriptor, a link to a file inside the working folder replaces that
// file, and a link out of it is refused.
func TestReplaceFileByWhatThePathIs(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	write := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		err := ReplaceFile(context.Background(), "/dev/full", write("report"))
		info, statErr := os.Stat("/dev/full")
		if err == nil || !strings.Contains(err.Error(), "no space left") || statErr != nil || info.Mode()&os.ModeCharDevice == 0 {
			t.Errorf("/dev/full: %v; %v %v", err, info, statErr)
		}
	}
	// A link to /proc/self/fd/N, as /dev/stdout is, writes to descriptor N.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := os.Symlink("/proc/self/fd/"+strconv.Itoa(int(w.Fd())), "out.prom"); err != nil {
		t.Fatal(err)
	}
	if err := ReplaceFile(context.Background(), "out.prom", write("metric 1\n")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	got, _ := io.ReadAll(r)
	if info, err := os.Lstat("out.prom"); string(got) != "metric 1\n" || err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("through the descriptor: %q; the link %v %v", got, info, err)
	}
	// A link to a file inside the working folder: the file is replaced,
	// the link kept.
	if err := os.WriteFile("real.sarif", []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.sarif", "link.sarif"); err != nil {
		t.Fatal(err)
	}
	if err := ReplaceFile(context.Background(), "link.sarif", write("new")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile("real.sarif"); string(data) != "new" {
		t.Errorf("real.sarif %q", data)
	}
	// A link out of the working folder, as a pull request could commit
	// drvcheck.sarif -> ~/.bashrc: refused, the target untouched.
	outside := filepath.Join(t.TempDir(), "bashrc")
	if err := os.WriteFile(outside, []byte("CANARY"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, "drvcheck.sarif"); err != nil {
		t.Fatal(err)
	}
	err = ReplaceFile(context.Background(), "drvcheck.sarif", write("report"))
	if data, _ := os.ReadFile(outside); err == nil || !strings.Contains(err.Error(), "outside the working folder") || string(data) != "CANARY" {
		t.Errorf("a link out: %v; target %q", err, data)
	}
}

package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/drvcheck/drvcheck/internal/config"
	"github.com/drvcheck/drvcheck/policy"
)

// A config exception moves the lab's DRV001 finding into Suppressed, keeps
// its file and line, and the summary counts it; once expired, it is back.
func TestCheckAppliesExceptions(t *testing.T) {
	lab := filepath.Join("..", "..", "testdata", "lab")
	cfg := Config{
		Paths:    []string{lab},
		Registry: config.Registry{Matrix: []string{filepath.Join(lab, "support-matrix.csv")}},
	}
	base, err := Check(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if drv001(base.Findings) == nil {
		t.Fatal("the lab has no DRV001 finding to suppress")
	}
	cfg.Exceptions = []config.Exception{{Rule: "DRV001", Object: "Node/lab-node-3", Reason: "image build in progress", Expires: "2030-01-01"}}
	cfg.ConfigFile = ".drvcheck.yaml"
	cfg.Today = time.Date(2029, 12, 31, 0, 0, 0, 0, time.UTC)
	res, err := Check(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if drv001(res.Findings) != nil || len(res.Findings) != len(base.Findings)-1 || len(res.Suppressed) != 1 {
		t.Fatalf("findings %+v, suppressed %+v", res.Findings, res.Suppressed)
	}
	s := res.Suppressed[0]
	if s.Rule != "DRV001" || !strings.HasSuffix(s.File, "node3.yaml") || s.Line != 15 || s.Reason != "image build in progress" {
		t.Errorf("suppressed = %+v", s)
	}
	if res.Summary.Errors != base.Summary.Errors-1 || res.Summary.Suppressed != 1 || res.Summary.GPUNodes != 4 {
		t.Errorf("summary = %+v, without the exception %+v", res.Summary, base.Summary)
	}

	cfg.Today = time.Date(2030, 1, 2, 0, 0, 0, 0, time.UTC)
	res, err = Check(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	back := drv001(res.Findings)
	if back == nil || res.Summary.Errors != base.Summary.Errors || res.Summary.Suppressed != 0 || len(res.Expired) != 1 {
		t.Fatalf("after expiry: findings %+v, summary %+v, expired %+v", res.Findings, res.Summary, res.Expired)
	}
	if !strings.Contains(back.Message, "expired on 2030-01-01") {
		t.Errorf("message = %q", back.Message)
	}
}

func drv001(fs []policy.Finding) *policy.Finding {
	for i := range fs {
		if fs[i].Rule == "DRV001" {
			return &fs[i]
		}
	}
	return nil
}

func TestCheckRejectsMalformedException(t *testing.T) {
	lab := filepath.Join("..", "..", "testdata", "lab")
	_, err := Check(context.Background(), Config{
		Paths:      []string{lab},
		Exceptions: []config.Exception{{Rule: "DRV001", Object: "Node/lab-node-3"}},
		ConfigFile: "x/.drvcheck.yaml",
	})
	if err == nil || !strings.Contains(err.Error(), "x/.drvcheck.yaml: exceptions[0]: no reason") {
		t.Errorf("err = %v", err)
	}
}

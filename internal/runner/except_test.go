package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/drvcheck/drvcheck/internal/config"
)

// A config exception moves the lab's one error into Suppressed, keeps its
// file and line, and the summary counts it; once expired, the error is back.
func TestCheckAppliesExceptions(t *testing.T) {
	lab := filepath.Join("..", "..", "testdata", "lab")
	cfg := Config{
		Paths:      []string{lab},
		Matrix:     []string{filepath.Join(lab, "support-matrix.csv")},
		Exceptions: []config.Exception{{Rule: "DRV001", Object: "Node/lab-node-3", Reason: "image build in progress", Expires: "2030-01-01"}},
		ConfigFile: ".drvcheck.yaml",
		Today:      time.Date(2029, 12, 31, 0, 0, 0, 0, time.UTC),
	}
	res, err := Check(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 0 || len(res.Suppressed) != 1 {
		t.Fatalf("findings %+v, suppressed %+v", res.Findings, res.Suppressed)
	}
	s := res.Suppressed[0]
	if !strings.HasSuffix(s.File, "node3.yaml") || s.Line != 1 || s.Reason != "image build in progress" {
		t.Errorf("suppressed = %+v", s)
	}
	if res.Summary.Errors != 0 || res.Summary.Suppressed != 1 || res.Summary.GPUNodes != 4 {
		t.Errorf("summary = %+v", res.Summary)
	}

	cfg.Today = time.Date(2030, 1, 2, 0, 0, 0, 0, time.UTC)
	res, err = Check(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Summary.Errors != 1 || res.Summary.Suppressed != 0 || len(res.Expired) != 1 {
		t.Fatalf("after expiry: findings %+v, summary %+v, expired %+v", res.Findings, res.Summary, res.Expired)
	}
	if !strings.Contains(res.Findings[0].Message, "expired on 2030-01-01") {
		t.Errorf("message = %q", res.Findings[0].Message)
	}
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

package runner

import (
	"time"

	"github.com/drvcheck/drvcheck/internal/exceptions"
	"github.com/drvcheck/drvcheck/policy"
)

// Except applies the exceptions of cfg (the config file's list and the
// objects' drvcheck.io/ignore annotations) to a placed result: suppressed
// findings move from Findings to Suppressed and are counted in the summary,
// and expired exceptions are listed. Every path that evaluates rules (files
// or a live cluster) calls it once, after Evaluate.
func Except(res *Result, cfg Config) error {
	today := cfg.Today
	if today.IsZero() {
		today = time.Now()
	}
	set, err := exceptions.New(cfg.Exceptions, cfg.ConfigFile, res.Inventory, today)
	if err != nil {
		return err
	}
	out := set.Apply(res.Findings)
	res.Findings, res.Suppressed, res.Expired = out.Findings, out.Suppressed, out.Expired
	res.Summary.Errors, res.Summary.Warnings = 0, 0
	for _, f := range res.Findings {
		switch f.Severity {
		case policy.Error:
			res.Summary.Errors++
		case policy.Warning:
			res.Summary.Warnings++
		}
	}
	res.Summary.Suppressed = len(res.Suppressed)
	return nil
}

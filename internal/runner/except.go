package runner

import (
	"time"

	"github.com/drvcheck/drvcheck/internal/exceptions"
)

// except applies the exceptions of cfg (the config file's list and the
// objects' drvcheck.io/ignore annotations) to a placed result: suppressed
// findings move from Findings to Suppressed, and expired exceptions are
// listed. The summary counts what is left, once.
func except(res *Result, cfg Config) error {
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
	res.Summary.Count(res.Findings, 1)
	res.Summary.Suppressed = len(res.Suppressed)
	return nil
}

package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/drvcheck/drvcheck/internal/runner"
)

// runScan evaluates every rule over the live cluster, read-only.
func runScan(ctx context.Context, e *env, args []string) error {
	o := newFlags(e, "scan", "")
	o.addReportFlag()
	o.addClusterFlags()
	if err := o.parse(args); err != nil {
		return err
	}
	ctx, cancel := o.deadline(ctx)
	defer cancel()
	if o.fs.NArg() > 0 {
		return fmt.Errorf("scan: reads the live cluster and takes no PATH (got %s); use check for manifests", strings.Join(o.fs.Args(), " "))
	}
	if err := o.loadBaseline(nil); err != nil {
		return err
	}
	res, err := runner.Run(ctx, o.runnerConfig(e, nil), runner.Live(ctx, o.clusterOptions()))
	return o.conclude(ctx, e, res, err)
}

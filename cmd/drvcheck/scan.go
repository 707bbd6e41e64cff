package main

import (
	"context"

	"github.com/drvcheck/drvcheck/internal/runner"
)

// runScan evaluates every rule over the live cluster, read-only.
func runScan(ctx context.Context, o *options, _ []string) error {
	if o.ClusterName == "" {
		o.ClusterName = o.cluster.Context // a fleet's merge names it so
	}
	res, err := runner.Run(ctx, o.runnerConfig(nil), runner.Live(ctx, o.clusterOptions()))
	return o.conclude(ctx, res, err)
}

package main

import (
	"context"

	"github.com/drvcheck/drvcheck/internal/runner"
)

// runScan evaluates every rule over the live cluster, read-only; given
// --context more than once, over each of those clusters (scanFleet).
func runScan(ctx context.Context, o *options, _ []string) error {
	if len(o.cluster.Contexts) > 1 {
		return scanFleet(ctx, o, o.cluster.Contexts)
	}
	if o.ClusterName == "" {
		o.ClusterName = o.clusterOptions().Context // a fleet's merge names it so
	}
	res, err := runner.Run(ctx, o.runnerConfig(nil), runner.Live(ctx, o.clusterOptions()))
	return o.conclude(ctx, res, err)
}

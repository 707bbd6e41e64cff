package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/drvcheck/drvcheck/internal/cluster"
	"github.com/drvcheck/drvcheck/internal/runner"
)

// scanCmd evaluates every rule over the live cluster, read-only; given
// --context more than once, or --all-contexts, over each of those
// clusters (scanFleet).
func scanCmd(o *options) runFunc {
	all := o.fs.Bool("all-contexts", false, "scan the cluster of every context of the kubeconfig, one fleet result for all (as --context given once per context)")
	o.refuse(func() error {
		if *all && len(o.cluster.Contexts) > 0 {
			return errors.New("scan: --all-contexts and --context both say which clusters; give one")
		}
		return nil
	})
	return func(ctx context.Context, o *options, _ []string) error {
		contexts := o.cluster.Contexts
		if *all {
			names, err := cluster.Contexts(o.clusterOptions())
			if err != nil {
				return err
			}
			if len(names) == 0 {
				return fmt.Errorf("scan: --all-contexts: the kubeconfig has no context")
			}
			contexts = names
		}
		if len(contexts) > 1 || *all {
			return scanFleet(ctx, o, contexts)
		}
		return runScan(ctx, o)
	}
}

// runScan is one cluster's scan.
func runScan(ctx context.Context, o *options) error {
	if o.ClusterName == "" {
		o.ClusterName = o.clusterOptions().Context // a fleet's merge names it so
	}
	res, err := runner.Run(ctx, o.runnerConfig(nil), runner.Live(ctx, o.clusterOptions()))
	return o.conclude(ctx, res, err)
}

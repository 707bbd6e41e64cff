package main

import (
	"context"
	"fmt"

	"github.com/drvcheck/drvcheck/internal/cluster"
	"github.com/drvcheck/drvcheck/internal/runner"
)

// scanCmd evaluates every rule over the live cluster, read-only; given
// --context more than once, or --all-contexts, over each of those
// clusters (scanFleet).
func scanCmd(o *options) runFunc {
	all := o.addAllContexts("scan the cluster of every context of the kubeconfig, one fleet result for all (as --context given once per context)")
	return func(ctx context.Context, o *options, _ []string) error {
		contexts, several, err := o.contexts(*all)
		if err != nil {
			return err
		}
		if several {
			return scanFleet(ctx, o, contexts)
		}
		return runScan(ctx, o)
	}
}

// addAllContexts registers --all-contexts, which --context excludes.
func (o *options) addAllContexts(usage string) *bool {
	all := o.fs.Bool("all-contexts", false, usage)
	o.refuse(func() error {
		if *all && len(o.cluster.Contexts) > 0 {
			return fmt.Errorf("%s: --all-contexts and --context both say which clusters; give one", o.fs.Name())
		}
		return nil
	})
	return all
}

// contexts are the clusters to read: every context of the kubeconfig
// (all), else those --context names (none: the current context alone);
// several says a fleet is read, one result per cluster.
func (o *options) contexts(all bool) (names []string, several bool, err error) {
	if !all {
		return o.cluster.Contexts, len(o.cluster.Contexts) > 1, nil
	}
	names, err = cluster.Contexts(o.clusterOptions())
	if err != nil {
		return nil, false, err
	}
	if len(names) == 0 {
		return nil, false, fmt.Errorf("%s: --all-contexts: the kubeconfig has no context", o.fs.Name())
	}
	return names, true, nil
}

// runScan is one cluster's scan.
func runScan(ctx context.Context, o *options) error {
	if o.ClusterName == "" {
		o.ClusterName = o.clusterOptions().Context // a fleet's merge names it so
	}
	res, err := runner.Run(ctx, o.runnerConfig(nil), runner.Live(ctx, o.clusterOptions()))
	return o.conclude(ctx, res, err)
}

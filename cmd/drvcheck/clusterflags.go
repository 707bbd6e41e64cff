package main

import (
	"context"
	"time"

	"github.com/drvcheck/drvcheck/internal/cluster"
	"github.com/drvcheck/drvcheck/internal/runner"
)

// clusterOptions returns what the cluster package needs, once the flags
// are parsed.
func (o *options) clusterOptions() cluster.Options {
	c := o.cluster
	return cluster.Options{Kubeconfig: c.Kubeconfig, Context: c.Context, Timeout: time.Duration(c.RequestTimeout)}
}

// reader reads the manifests under paths, or without paths the live
// cluster the flags name (kinds: every kind drvcheck uses when none).
func (o *options) reader(ctx context.Context, paths []string, kinds ...cluster.Kind) runner.Reader {
	if len(paths) > 0 {
		return runner.Files(ctx, o.runnerConfig(paths))
	}
	return runner.Live(ctx, o.clusterOptions(), kinds...)
}

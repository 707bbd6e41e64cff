package main

import (
	"context"
	"fmt"
	"time"

	"github.com/drvcheck/drvcheck/internal/cluster"
	"github.com/drvcheck/drvcheck/internal/runner"
)

// clusterFlags are the flags of the commands that can read a live cluster.
// They follow kubectl's names and loading rules.
type clusterFlags struct {
	kubeconfig, context string
	timeout             time.Duration
}

// addClusterFlags registers --kubeconfig, --context and --request-timeout.
func (o *options) addClusterFlags() *clusterFlags {
	c := &clusterFlags{}
	o.fs.StringVar(&c.kubeconfig, "kubeconfig", "", "kubeconfig file (default $KUBECONFIG, then ~/.kube/config, then the in-cluster config of a Pod)")
	o.fs.StringVar(&c.context, "context", "", "kubeconfig context to use (default the current context)")
	o.fs.DurationVar(&c.timeout, "request-timeout", cluster.DefaultTimeout, "longest wait for one API request, e.g. 30s; 0 waits forever")
	return c
}

// options returns what the cluster package needs, once the flags are parsed.
func (c *clusterFlags) options() (cluster.Options, error) {
	if c.timeout < 0 {
		return cluster.Options{}, fmt.Errorf("--request-timeout %s: must not be negative", c.timeout)
	}
	return cluster.Options{Kubeconfig: c.kubeconfig, Context: c.context, Timeout: c.timeout}, nil
}

// reader reads the manifests under paths, or without paths the live
// cluster the flags name (kinds: every kind drvcheck uses when none).
func reader(ctx context.Context, e *env, o *options, cf *clusterFlags, paths []string, kinds ...cluster.Kind) (runner.Reader, error) {
	if len(paths) > 0 {
		return runner.Files(o.runnerConfig(e, paths)), nil
	}
	cl, err := cf.options()
	if err != nil {
		return nil, err
	}
	return runner.Live(ctx, cl, kinds...), nil
}

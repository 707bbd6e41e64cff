package main

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

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

// liveNode gets one node from the cluster the flags name.
func liveNode(ctx context.Context, cf *clusterFlags, name string) (*corev1.Node, error) {
	cl, err := cf.options()
	if err != nil {
		return nil, err
	}
	return runner.LiveNode(ctx, cl, name)
}

// scanNodes evaluates the rules over the cluster's nodes alone, which is
// all that audit reports on.
func scanNodes(ctx context.Context, e *env, o *options, cf *clusterFlags) (*runner.Result, error) {
	cl, err := cf.options()
	if err != nil {
		return nil, err
	}
	return runner.Scan(ctx, o.runnerConfig(e, nil), cl, cluster.Nodes)
}

// checkLiveNodes evaluates the rules over the manifests under paths with
// the cluster's nodes (check --nodes-from-cluster).
func checkLiveNodes(ctx context.Context, e *env, o *options, cf *clusterFlags, paths []string) (*runner.Result, error) {
	cl, err := cf.options()
	if err != nil {
		return nil, err
	}
	return runner.CheckLiveNodes(ctx, o.runnerConfig(e, paths), cl)
}

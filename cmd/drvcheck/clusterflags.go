package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/drvcheck/drvcheck/internal/cluster"
	"github.com/drvcheck/drvcheck/internal/runner"
)

// clusterOptions returns what the cluster package needs, once the flags
// are parsed: the one --context, or the current context.
func (o *options) clusterOptions() cluster.Options {
	name := ""
	if len(o.cluster.Contexts) > 0 {
		name = o.cluster.Contexts[0]
	}
	return o.clusterOptionsFor(name)
}

// clusterOptionsFor is clusterOptions for the context name.
func (o *options) clusterOptionsFor(name string) cluster.Options {
	c := o.cluster
	return cluster.Options{Kubeconfig: c.Kubeconfig, Context: name, Timeout: time.Duration(c.RequestTimeout)}
}

// oneContext refuses --context given more than once where a command
// reads one cluster, and a context named twice.
func (o *options) oneContext() error {
	names := o.cluster.Contexts
	for i, n := range names {
		if slices.Contains(names[:i], n) {
			return fmt.Errorf("%s: --context %s given twice", o.fs.Name(), n)
		}
	}
	if len(names) > 1 && !slices.Contains([]string{"scan", "report", "audit", "plan"}, o.fs.Name()) {
		return fmt.Errorf("%s: --context given %d times: only scan, audit, plan --all and report merge read several clusters", o.fs.Name(), len(names))
	}
	return nil
}

// reader reads the manifests under paths, or without paths the live
// cluster the flags name (kinds: every kind drvcheck uses when none).
func (o *options) reader(ctx context.Context, paths []string, kinds ...cluster.Kind) runner.Reader {
	if len(paths) > 0 {
		return runner.Files(ctx, o.runnerConfig(paths))
	}
	return runner.Live(ctx, o.clusterOptions(), kinds...)
}

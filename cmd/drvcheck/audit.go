package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/drvcheck/drvcheck/internal/cluster"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/internal/runner"
	"github.com/drvcheck/drvcheck/policy"
)

// auditKinds are what audit reads of a cluster.
var auditKinds = []cluster.Kind{cluster.Nodes, cluster.ClusterPolicies, cluster.NVIDIADrivers, cluster.Deployments}

// auditCmd lists the GPU nodes whose driver image is missing; given
// --context more than once, or --all-contexts, those of every cluster,
// each line naming its cluster.
func auditCmd(o *options) runFunc {
	all := o.addAllContexts("audit the cluster of every context of the kubeconfig, one list for all (as --context given once per context)")
	return func(ctx context.Context, o *options, paths []string) error {
		contexts, several, err := o.contexts(*all)
		if err != nil {
			return err
		}
		if several {
			if len(paths) > 0 {
				return errors.New("audit: several clusters are read live: give no PATH")
			}
			return auditFleet(ctx, o, contexts)
		}
		fs, err := auditOne(ctx, o, paths, o.reader(ctx, paths, auditKinds...))
		if err != nil {
			return err
		}
		return audit(o.env, fs)
	}
}

// auditOne is one cluster's (or one set of files') findings about images.
func auditOne(ctx context.Context, o *options, paths []string, read runner.Reader) ([]policy.Finding, error) {
	res, err := runner.Run(ctx, o.runnerConfig(paths), read)
	if err != nil {
		return nil, err
	}
	// An operator profile names a repository; else a source must be given.
	if !res.Catalog.Configured() {
		return nil, errors.New("audit: needs --matrix or --registry to know which driver images exist")
	}
	// An audit of no GPU node (an empty stdin from a failed kubectl, the
	// wrong folder) has audited nothing: that is no OK.
	if res.Summary.GPUNodes == 0 {
		return nil, fmt.Errorf("audit: no GPU nodes in %s (no node carries %s=true)", where(paths), nodefacts.GPUPresent)
	}
	// audit states facts: an exception does not make a missing image exist.
	return runner.AllFindings(res), nil
}

// auditFleet audits each context's cluster, four at once; a cluster that
// cannot be audited is one error line naming it, the others still listed,
// and the run exits 2.
func auditFleet(ctx context.Context, o *options, contexts []string) error {
	g := gather(ctx, o, contexts, func(ctx context.Context, name string) ([]policy.Finding, []string, error) {
		fs, err := auditOne(ctx, o, nil, runner.Live(ctx, o.clusterOptionsFor(name), auditKinds...))
		for i := range fs {
			fs[i].Cluster = name
		}
		return fs, nil, err
	})
	var fs []policy.Finding
	for _, r := range g.results {
		fs = append(fs, r...)
	}
	if len(g.results) > 0 { // no "OK" for a fleet of which nothing was read
		err := audit(o.env, fs)
		if len(g.failed) == 0 || err != nil && !errors.Is(err, errFindings) {
			return err
		}
	}
	return g.unread("audit")
}

// audit prints one MISSING line per node, sorted by node name, or OK. The
// rules say which findings are about a node's image (Finding.Image): a
// node whose tag cannot be made is not a pass, it is named on stderr and
// the audit exits 2.
func audit(e *env, fs []policy.Finding) error {
	var missing, unknown []policy.Finding
	for _, f := range fs {
		switch f.Image {
		case "missing":
			missing = append(missing, f)
		case "unknown":
			unknown = append(unknown, f)
		}
	}
	byNode := func(a, b policy.Finding) int {
		return cmp.Or(strings.Compare(a.Cluster, b.Cluster), strings.Compare(a.Node, b.Node))
	}
	slices.SortFunc(missing, byNode)
	slices.SortFunc(unknown, byNode)
	if len(missing) > 0 || len(unknown) == 0 {
		if err := render.Audit(e.stdout, missing); err != nil {
			return err
		}
	}
	if len(unknown) > 0 {
		for _, f := range unknown[1:] {
			fmt.Fprintf(e.stderr, "drvcheck: audit: %s%s\n", clusterOf(f), f.Message)
		}
		return fmt.Errorf("audit: %s%s", clusterOf(unknown[0]), unknown[0].Message)
	}
	if len(missing) > 0 {
		return errFindings
	}
	return nil
}

// clusterOf names a finding's cluster in a fleet's audit ("eu-1: ").
func clusterOf(f policy.Finding) string {
	if f.Cluster == "" {
		return ""
	}
	return f.Cluster + ": "
}

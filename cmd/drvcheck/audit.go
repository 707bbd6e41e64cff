package main

import (
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

// runAudit lists the GPU nodes whose driver image is missing.
func runAudit(ctx context.Context, o *options, paths []string) error {
	read := o.reader(ctx, paths, cluster.Nodes, cluster.ClusterPolicies, cluster.NVIDIADrivers, cluster.Deployments)
	res, err := runner.Run(ctx, o.runnerConfig(paths), read)
	if err != nil {
		return err
	}
	// An operator profile names a repository; else a source must be given.
	if !res.Catalog.Configured() {
		return errors.New("audit: needs --matrix or --registry to know which driver images exist")
	}
	// An audit of no GPU node (an empty stdin from a failed kubectl, the
	// wrong folder) has audited nothing: that is no OK.
	if res.Summary.GPUNodes == 0 {
		return fmt.Errorf("audit: no GPU nodes in %s (no node carries %s=true)", where(paths), nodefacts.GPUPresent)
	}
	// audit states facts: an exception does not make a missing image exist.
	return audit(o.env, runner.AllFindings(res))
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
	byNode := func(a, b policy.Finding) int { return strings.Compare(a.Node, b.Node) }
	slices.SortFunc(missing, byNode)
	slices.SortFunc(unknown, byNode)
	if len(missing) > 0 || len(unknown) == 0 {
		if err := render.Audit(e.stdout, missing); err != nil {
			return err
		}
	}
	if len(unknown) > 0 {
		for _, f := range unknown[1:] {
			fmt.Fprintf(e.stderr, "drvcheck: audit: %s\n", f.Message)
		}
		return fmt.Errorf("audit: %s", unknown[0].Message)
	}
	if len(missing) > 0 {
		return errFindings
	}
	return nil
}

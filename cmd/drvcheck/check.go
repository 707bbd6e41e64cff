package main

import (
	"context"
	"errors"

	"github.com/drvcheck/drvcheck/internal/runner"
)

// checkCmd evaluates every rule over manifests; --diff-base also checks
// the merge base, whose findings are the existing ones.
func checkCmd(o *options) runFunc {
	nodesFromCluster := o.fs.Bool("nodes-from-cluster", false, "take the nodes from the live cluster and everything else from PATH")
	diffBase := o.fs.String("diff-base", "", "also check the merge base of REF and HEAD (e.g. origin/main), from a copy of its tree: the findings it holds are existing, and --fail-on counts only the new ones, as with --baseline")
	o.refuse(func() error {
		switch {
		case *diffBase != "" && o.Baseline != "":
			return errors.New("check: --baseline and --diff-base both say what to compare with; give one")
		case *nodesFromCluster && len(o.Nodes) > 0:
			return errors.New("check: --nodes and --nodes-from-cluster both say where the nodes come from; give one")
		}
		return nil
	})
	return func(ctx context.Context, o *options, paths []string) error {
		if o.AsRendered {
			paths = renderRoots(paths)
		}
		run := func(paths []string) (*runner.Result, error) {
			cfg := o.runnerConfig(paths)
			read := runner.Files(ctx, cfg)
			switch {
			case *nodesFromCluster:
				read = runner.FilesWithLiveNodes(ctx, cfg, o.clusterOptions())
			case len(o.Nodes) > 0:
				read = runner.FilesWithNodes(ctx, cfg, o.Nodes)
			}
			return runner.Run(ctx, cfg, read)
		}
		if *diffBase != "" {
			b, err := runner.DiffBaseline(ctx, *diffBase, paths, int64(o.MaxInputSize), run)
			if err != nil {
				return o.failed(ctx, err)
			}
			o.base = b
		}
		res, err := run(paths)
		return o.conclude(ctx, res, err)
	}
}

package main

import (
	"context"
	"errors"

	"github.com/drvcheck/drvcheck/internal/runner"
)

func runCheck(ctx context.Context, e *env, args []string) error {
	o := newFlags(e, "check", "[PATH...]")
	o.addReportFlag()
	nodesFromCluster := o.fs.Bool("nodes-from-cluster", false, "take the nodes from the live cluster and everything else from PATH")
	o.bind(&o.Inputs)
	diffBase := o.fs.String("diff-base", "", "also check the merge base of REF and HEAD (e.g. origin/main), from a copy of its tree: the findings it holds are existing, and --fail-on counts only the new ones, as with --baseline")
	o.addClusterFlags()
	if err := o.parse(args); err != nil {
		return err
	}
	ctx, cancel := o.deadline(ctx)
	defer cancel()
	paths := o.fs.Args()
	if len(paths) == 0 {
		return errors.New("check: no PATH given (use - for standard input)")
	}
	if o.AsRendered {
		paths = renderRoots(paths)
	}
	if *diffBase != "" && o.Baseline != "" {
		return errors.New("check: --baseline and --diff-base both say what to compare with; give one")
	}
	if err := o.loadBaseline(paths); err != nil {
		return err
	}
	if *nodesFromCluster && len(o.Nodes) > 0 {
		return errors.New("check: --nodes and --nodes-from-cluster both say where the nodes come from; give one")
	}
	run := func(paths []string) (*runner.Result, error) {
		cfg := o.runnerConfig(e, paths)
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
		b, err := diffBaseline(ctx, *diffBase, paths, int64(o.MaxInputSize), run)
		if err != nil {
			return o.failed(ctx, err)
		}
		o.base = b
	}
	res, err := run(paths)
	return o.conclude(ctx, e, res, err)
}

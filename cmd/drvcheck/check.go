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
	nodes := o.fs.StringArray("nodes", nil, "take the nodes from FILE (drvcheck snapshot nodes writes it) and everything else from PATH; repeatable")
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
	cfg := o.runnerConfig(e, paths)
	read := runner.Files(ctx, cfg)
	switch {
	case *nodesFromCluster && len(*nodes) > 0:
		return errors.New("check: --nodes and --nodes-from-cluster both say where the nodes come from; give one")
	case *nodesFromCluster:
		read = runner.FilesWithLiveNodes(ctx, cfg, o.clusterOptions())
	case len(*nodes) > 0:
		read = runner.FilesWithNodes(ctx, cfg, *nodes)
	}
	res, err := runner.Run(ctx, cfg, read)
	return o.conclude(ctx, e, res, err)
}

package main

import (
	"context"

	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/internal/runner"
	"github.com/drvcheck/drvcheck/internal/status"
	"github.com/drvcheck/drvcheck/policy"
)

// runStatus prints one row per GPU node. It exits 1 when the finding that
// explains some node's stall reaches --fail-on.
func runStatus(ctx context.Context, e *env, args []string) error {
	o := newFlags(e, "status", "[PATH...]")
	o.addClusterFlags()
	if err := o.parse(args); err != nil {
		return err
	}
	ctx, cancel := o.deadline(ctx)
	defer cancel()
	if err := render.TextOrJSON("status", o.Output.Output); err != nil {
		return err
	}
	paths := o.fs.Args()
	read := reader(ctx, e, o, paths)
	res, err := runner.Run(ctx, o.runnerConfig(e, paths), read)
	if err != nil {
		return err
	}
	rows := status.Rows(res.Facts, res.Catalog, res.Findings)
	if err := render.Status(e.stdout, o.Output.Output, rows); err != nil {
		return err
	}
	var explaining []policy.Finding
	for _, r := range rows {
		if r.Finding != nil {
			explaining = append(explaining, *r.Finding)
		}
	}
	if o.fails(explaining) {
		return errFindings
	}
	return nil
}

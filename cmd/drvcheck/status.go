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
func runStatus(ctx context.Context, o *options, paths []string) error {
	if err := render.TextOrJSON("status", o.Output.Output); err != nil {
		return err
	}
	res, err := runner.Run(ctx, o.runnerConfig(paths), o.reader(ctx, paths))
	if err != nil {
		return err
	}
	rows := status.Rows(res.Facts, res.Catalog, res.Findings)
	if err := render.Status(o.env.stdout, o.Output.Output, rows); err != nil {
		return err
	}
	var explaining []policy.Finding
	for _, r := range rows {
		if r.Finding != nil {
			explaining = append(explaining, *r.Finding)
		}
	}
	return o.exitFor(explaining)
}

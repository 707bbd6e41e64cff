package main

import (
	"context"
	"fmt"

	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/runner"
	"github.com/drvcheck/drvcheck/internal/status"
	"github.com/drvcheck/drvcheck/policy"
)

// runStatus prints one row per GPU node. It exits 1 when the finding that
// explains some node's stall reaches --fail-on.
func runStatus(ctx context.Context, e *env, args []string) error {
	o := newFlags("status", "[PATH...]", e.stderr)
	cf := o.addClusterFlags()
	if err := o.parse(args); err != nil {
		return err
	}
	if o.output != "text" && o.output != "json" {
		return fmt.Errorf("status: --output %s: want text or json", o.output)
	}
	paths := o.fs.Args()
	cfg := o.runnerConfig(e, paths)
	res, err := runner.Run(ctx, cfg, func(keepRaw bool) (*inventory.Inventory, error) {
		return loadInventory(ctx, o, e, cf, paths, keepRaw)
	})
	if err != nil {
		return err
	}
	rows := status.Rows(res.Drain, res.Catalog, res.Findings)
	if o.output == "json" {
		err = status.WriteJSON(e.stdout, rows)
	} else {
		err = status.WriteText(e.stdout, rows)
	}
	if err != nil {
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

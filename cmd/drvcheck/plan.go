package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/plan"
	"github.com/drvcheck/drvcheck/internal/runner"
)

func runPlan(ctx context.Context, e *env, args []string) error {
	o := newFlags("plan", "NODE --driver VERSION [PATH...]  |  --all --driver VERSION [PATH...]", e.stderr)
	var opt plan.RollingOptions
	var all bool
	o.fs.StringVar(&opt.Driver, "driver", "", "the driver version to upgrade to, e.g. 550.90.07 (required)")
	o.fs.BoolVar(&all, "all", false, "simulate the rolling upgrade of every GPU node instead of planning one")
	o.fs.IntVar(&opt.MaxParallel, "max-parallel-upgrades", 1, "with --all: nodes upgraded at once, as driver.upgradePolicy.maxParallelUpgrades (0 = all)")
	o.fs.BoolVar(&opt.Flags.Force, "force", false, "the drain deletes pods without a controller (kubectl drain --force; drain.force)")
	o.fs.BoolVar(&opt.Flags.DeleteEmptyDir, "delete-emptydir-data", false, "the drain deletes pods with emptyDir volumes (drain.deleteEmptyDir)")
	cf := o.addClusterFlags()
	if err := o.parse(args); err != nil {
		return err
	}
	if opt.Driver == "" {
		return errors.New("plan: --driver VERSION is required")
	}
	if err := plan.CheckVersion(opt.Driver); err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	if o.output != "text" && o.output != "json" {
		return fmt.Errorf("plan: --output %s: want text or json", o.output)
	}
	paths := o.fs.Args()
	node := ""
	if !all {
		if len(paths) == 0 {
			return errors.New("plan: no NODE given (or --all for every GPU node)")
		}
		node, paths = paths[0], paths[1:]
	}
	inv, err := loadInventory(ctx, o, e, cf, paths, false)
	if err != nil {
		return err
	}
	cat, err := runner.CatalogContext(ctx, o.runnerConfig(e, paths))
	if err != nil {
		return err
	}
	m, err := drain.New(inv)
	if err != nil {
		return err
	}
	if all {
		return printRolling(e, o.output, m, cat, opt)
	}
	p, err := plan.ForNode(m, cat, node, opt.Options)
	if errors.As(err, new(*plan.UnknownNodeError)) {
		return fmt.Errorf("plan: node %s not found in %s", node, where(paths))
	}
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	if o.output == "json" {
		err = p.WriteJSON(e.stdout)
	} else {
		err = p.WriteText(e.stdout)
	}
	if err == nil && !p.CanRun {
		return errFindings
	}
	return err
}

func printRolling(e *env, format string, m *drain.Model, cat *catalog.Catalog, opt plan.RollingOptions) error {
	r, err := plan.Roll(m, cat, opt)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	if format == "json" {
		err = r.WriteJSON(e.stdout)
	} else {
		err = r.WriteText(e.stdout)
	}
	if err == nil && r.FirstStall != "" {
		return errFindings
	}
	return err
}

// loadInventory reads the objects of paths, or of the live cluster the
// cluster flags name when there is no PATH.
func loadInventory(ctx context.Context, o *options, e *env, cf *clusterFlags, paths []string, keepRaw bool) (*inventory.Inventory, error) {
	if len(paths) > 0 {
		return runner.Inventory(o.runnerConfig(e, paths), keepRaw)
	}
	cl, err := cf.options()
	if err != nil {
		return nil, err
	}
	return runner.LiveInventory(ctx, cl, keepRaw)
}

// where names what was read, for messages.
func where(paths []string) string {
	if len(paths) == 0 {
		return "the cluster"
	}
	return strings.Join(paths, ", ")
}

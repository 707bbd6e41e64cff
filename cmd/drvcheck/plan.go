package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/operator"
	"github.com/drvcheck/drvcheck/internal/plan"
	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/internal/runner"
)

// planCmd plans the driver upgrade of one node, or with --all simulates
// the rollout over the fleet.
func planCmd(o *options) runFunc {
	var opt plan.RollingOptions
	var all bool
	allContexts := o.addAllContexts("with --all: the rollout of every context's cluster, each under its name (as --context given once per context)")
	o.fs.StringVar(&opt.Driver, "driver", "", "the driver version to upgrade to, e.g. 550.90.07 (required, but for --all of a live cluster: then the rollout the driver DaemonSet's current template asks for)")
	o.fs.BoolVar(&all, "all", false, "simulate the rolling upgrade of every GPU node instead of planning one")
	o.fs.BoolVar(&opt.Flags.Force, "force", false, "NODE: kubectl drain --force, which deletes pods without a controller")
	o.fs.BoolVar(&opt.Flags.DeleteEmptyDir, "delete-emptydir-data", false, "NODE: kubectl drain --delete-emptydir-data, which deletes pods with emptyDir volumes")
	pf := addPolicyFlags(o)
	return func(ctx context.Context, o *options, paths []string) error {
		if err := checkPlanFlags(o, all); err != nil {
			return err
		}
		contexts, several, err := o.contexts(*allContexts)
		if err != nil {
			return err
		}
		switch {
		case several && (!all || len(paths) > 0):
			return errors.New("plan: several clusters are planned with --all, read live: give --all and no PATH")
		case several:
			return planFleet(ctx, o, contexts, opt, pf)
		case !all:
			return planNode(ctx, o, paths, opt.Options)
		}
		return planAll(ctx, o, paths, opt, pf)
	}
}

// planNode plans the upgrade of the node named first in args.
func planNode(ctx context.Context, o *options, args []string, opt plan.Options) error {
	if err := checkDriver(opt.Driver, false, o.Output.Output); err != nil {
		return err
	}
	if len(args) == 0 {
		return errors.New("plan: no NODE given (or --all for every GPU node)")
	}
	node, paths := args[0], args[1:]
	m, res, err := runner.UpgradeFacts(ctx, o.runnerConfig(paths), o.reader(ctx, paths), node, opt.Driver)
	if err != nil {
		return err
	}
	p, err := plan.ForNode(m, runner.AfterOf(res), node, opt)
	if errors.As(err, new(*plan.UnknownNodeError)) {
		return fmt.Errorf("plan: node %s not found in %s", node, where(paths))
	}
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	if err := render.Plan(o.env.stdout, o.Output.Output, p); err != nil || p.CanRun {
		return err
	}
	return errFindings
}

// planAll simulates the rollout of every GPU node; its verdict's severity
// meets --fail-on as a finding's would. Without --driver, a live cluster
// rolls what its driver DaemonSets' current templates ask for.
func planAll(ctx context.Context, o *options, paths []string, opt plan.RollingOptions, pf *policyFlags) error {
	if err := checkRolling(o, opt, len(paths) == 0); err != nil {
		return err
	}
	r, err := rollOne(ctx, o, paths, o.reader(ctx, paths), opt, pf)
	if err != nil {
		return err
	}
	if err := render.Rolling(o.env.stdout, o.Output.Output, r); err != nil {
		return err
	}
	if o.failsAt(r.Severity) {
		return errFindings
	}
	return nil
}

// planFleet is plan --all of each context's cluster, four at once, each
// under its name; a cluster that cannot be read is one error line naming
// it, the others still planned, and the run exits 2.
func planFleet(ctx context.Context, o *options, contexts []string, opt plan.RollingOptions, pf *policyFlags) error {
	if err := checkRolling(o, opt, true); err != nil {
		return err
	}
	g := gather(ctx, o, contexts, func(ctx context.Context, name string) (*plan.Rolling, []string, error) {
		r, err := rollOne(ctx, o, nil, runner.Live(ctx, o.clusterOptionsFor(name)), opt, pf)
		if r != nil {
			r.Cluster = name
		}
		return r, nil, err
	})
	if len(g.results) == 0 {
		return g.unread("plan")
	}
	if err := render.Rollings(o.env.stdout, o.Output.Output, g.results); err != nil {
		return err
	}
	if len(g.failed) > 0 {
		return g.unread("plan")
	}
	for _, r := range g.results {
		if o.failsAt(r.Severity) {
			return errFindings
		}
	}
	return nil
}

// checkRolling checks --driver and the format of plan --all before
// anything is read; live says the cluster is read, whose driver
// DaemonSets may say what rolls.
func checkRolling(o *options, opt plan.RollingOptions, live bool) error {
	if err := checkDriver(opt.Driver, opt.Driver == "" && live, "text"); err != nil {
		return err
	}
	return render.OneOf("plan --all", o.Output.Output, "text", "json", "markdown", "html")
}

// rollOne is the rollout of one cluster, or of the files under paths.
func rollOne(ctx context.Context, o *options, paths []string, read runner.Reader, opt plan.RollingOptions, pf *policyFlags) (*plan.Rolling, error) {
	cfg := o.runnerConfig(paths)
	cfg.RolloutOnly = true
	m, res, err := runner.UpgradeFacts(ctx, cfg, read, "", opt.Driver)
	if err != nil {
		return nil, err
	}
	if opt.Driver == "" && len(paths) == 0 {
		opt.Driver, opt.Change = "the driver DaemonSet's current template", runner.PendingChange(res)
	}
	if opt.Policy, err = operator.Policies(res.Profile, pf.given(o)); err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	r, err := runner.Roll(ctx, m, runner.AfterOf(res), opt)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	return r, nil
}

// checkDriver refuses a missing or malformed --driver, and checks the
// output format plan prints, before anything is read.
func checkDriver(driver string, pending bool, format string) error {
	if driver == "" && !pending {
		return errors.New("plan: --driver VERSION is required (plan --all of a live cluster without it rolls the driver DaemonSet's current template)")
	}
	if err := nodefacts.CheckVersion(driver); err != nil && !pending {
		return fmt.Errorf("plan: %w", err)
	}
	return render.TextOrJSON("plan", format)
}

// where names what was read, for messages.
func where(paths []string) string {
	if len(paths) == 0 {
		return "the cluster"
	}
	return strings.Join(paths, ", ")
}

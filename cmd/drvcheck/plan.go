package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/operator"
	"github.com/drvcheck/drvcheck/internal/plan"
	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/internal/runner"
)

func runPlan(ctx context.Context, e *env, args []string) error {
	o := newFlags(e, "plan", "NODE --driver VERSION [PATH...]  |  --all --driver VERSION [PATH...]")
	var opt plan.RollingOptions
	var all bool
	o.fs.StringVar(&opt.Driver, "driver", "", "the driver version to upgrade to, e.g. 550.90.07 (required, but for --all of a live cluster: then the rollout the driver DaemonSet's current template asks for)")
	o.fs.BoolVar(&all, "all", false, "simulate the rolling upgrade of every GPU node instead of planning one")
	o.fs.BoolVar(&opt.Flags.Force, "force", false, "NODE: kubectl drain --force, which deletes pods without a controller")
	o.fs.BoolVar(&opt.Flags.DeleteEmptyDir, "delete-emptydir-data", false, "NODE: kubectl drain --delete-emptydir-data, which deletes pods with emptyDir volumes")
	pf := addPolicyFlags(o)
	o.addClusterFlags()
	if err := o.parse(args); err != nil {
		return err
	}
	ctx, cancel := o.deadline(ctx)
	defer cancel()
	if err := checkPlanFlags(o, all); err != nil {
		return err
	}
	pending := opt.Driver == "" && all && len(o.fs.Args()) == 0
	if opt.Driver == "" && !pending {
		return errors.New("plan: --driver VERSION is required (plan --all of a live cluster without it rolls the driver DaemonSet's current template)")
	}
	if err := nodefacts.CheckVersion(opt.Driver); err != nil && !pending {
		return fmt.Errorf("plan: %w", err)
	}
	if err := render.TextOrJSON("plan", o.Output.Output); err != nil {
		return err
	}
	paths := o.fs.Args()
	node := ""
	if !all {
		if len(paths) == 0 {
			return errors.New("plan: no NODE given (or --all for every GPU node)")
		}
		node, paths = paths[0], paths[1:]
	}
	m, after, res, err := upgradeFacts(ctx, e, o, paths, node, opt.Driver)
	if err != nil {
		return err
	}
	profile := res.Profile
	if pending {
		opt.Driver, opt.Change = "the driver DaemonSet's current template", pendingChange(res)
	}
	if all {
		if opt.Policy, err = operator.Policies(profile, pf.given(o)); err != nil {
			return fmt.Errorf("plan: %w", err)
		}
		return printRolling(e, o, m, after, opt)
	}
	p, err := plan.ForNode(m, after, node, opt.Options)
	if errors.As(err, new(*plan.UnknownNodeError)) {
		return fmt.Errorf("plan: node %s not found in %s", node, where(paths))
	}
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	if err := render.Plan(e.stdout, o.Output.Output, p); err != nil || p.CanRun {
		return err
	}
	return errFindings
}

// upgradeFacts returns the drain model of the fleet as it is and what the
// rules say of it once node (every GPU node when "") runs driver; with no
// driver, of the fleet as it is.
func upgradeFacts(ctx context.Context, e *env, o *options, paths []string, node, driver string) (*drain.Model, plan.After, *runner.Result, error) {
	cfg := o.runnerConfig(e, paths)
	if driver != "" {
		cfg.Upgrade = &runner.Upgrade{Driver: driver}
	}
	if node != "" {
		cfg.Upgrade.Nodes = []string{node}
	}
	res, m, err := runner.RunUpgrade(ctx, cfg, reader(ctx, e, o, paths))
	if err != nil {
		return nil, plan.After{}, nil, err
	}
	return m, plan.After{Facts: res.Facts, Catalog: res.Catalog, Findings: allFindings(res)}, res, nil
}

// pendingChange is what the live driver DaemonSets' current templates do
// to each node's driver pod (operator.PendingChanges), with the
// operator's release the run read or assumed.
func pendingChange(res *runner.Result) func(string) (string, string) {
	v := operator.Newest
	if res.Profile != nil {
		v = res.Profile.Version
	}
	changes := operator.PendingChanges(res.Inventory.DaemonSets, res.Inventory.Pods, v, res.Profile.VersionKnown())
	return func(node string) (string, string) {
		c, ok := changes[node]
		if !ok {
			return operator.NoOp, "no driver pod runs there"
		}
		return c.Kind, c.Why
	}
}

// printRolling prints the rollout; its verdict's severity meets
// --fail-on as a finding's would.
func printRolling(e *env, o *options, m *drain.Model, after plan.After, opt plan.RollingOptions) error {
	r, err := plan.Roll(m, after, opt)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	if err := render.Rolling(e.stdout, o.Output.Output, r); err != nil {
		return err
	}
	if o.failsAt(r.Severity) {
		return errFindings
	}
	return nil
}

// where names what was read, for messages.
func where(paths []string) string {
	if len(paths) == 0 {
		return "the cluster"
	}
	return strings.Join(paths, ", ")
}

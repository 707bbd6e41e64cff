package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/operator"
	"github.com/drvcheck/drvcheck/internal/operator/change"
	"github.com/drvcheck/drvcheck/internal/plan"
	"github.com/drvcheck/drvcheck/policy"
)

// A Side is one configuration drvcheck diff compares.
type Side struct {
	// Config reads the side: the run's, with the side's paths, and its
	// values file in place of --operator-values.
	Config Config
	// Paths and Values are what the side is: the paths it reads and its
	// chart values file (when the configuration is one, or
	// --operator-values names one).
	Paths  []string
	Values string
	Name   string // how messages name it
	// Named: the user named this side (OLD or NEW), so it must hold a
	// configuration of the operator; a merge base may lack one (the pull
	// request adds it).
	Named bool
	// Cleanup removes the folder the side was exported to (ExportBase).
	Cleanup func()
}

// Diff reads both sides, compares their profiles, and rolls the change
// over the new side's fleet unless it is a no-op; flags are the upgrade
// policy flags the user gave, which win over the profile's.
func Diff(ctx context.Context, base, head Side, flags operator.PolicyFlags) (*plan.Change, error) {
	if base.Cleanup != nil {
		defer base.Cleanup()
	}
	if len(head.Paths) == 0 {
		return nil, errors.New("diff: give the PATHs of the fleet (its nodes) besides the two values files")
	}
	baseProfile, baseFacts, err := readBase(ctx, base)
	if err != nil {
		return nil, err
	}
	res, m, err := RunUpgrade(ctx, head.Config, Files(ctx, head.Config))
	if err != nil {
		return nil, err
	}
	if res.Profile == nil {
		return nil, noConfiguration(head)
	}
	if baseProfile == nil {
		baseProfile = &operator.Profile{Version: res.Profile.Version}
	}
	c := &plan.Change{Base: base.Name, Head: head.Name}
	c.Scopes = change.Compare(baseProfile, res.Profile)
	c.Nodes = change.NodeChanges(c.Scopes, baseFacts, res.Facts)
	c.Verdict = c.Worst()
	if c.Verdict == change.NoOp {
		return c, nil
	}
	opt := plan.RollingOptions{Change: c.ChangeOf()}
	opt.Driver = "the new configuration"
	if opt.Policy, err = operator.Policies(res.Profile, flags); err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	if c.Rolling, err = Roll(ctx, m, AfterOf(res), opt); err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	return c, nil
}

// readBase reads the base side as the head side is read: the same opener,
// limits and warnings, and for a side the user named the same error when
// it holds no configuration of the operator. A base that is a link out of
// the repository, an alias bomb or a list was read as empty, and the
// change called a full rollout. A merge base without the paths is empty:
// everything is new.
func readBase(ctx context.Context, base Side) (*operator.Profile, *nodefacts.Set, error) {
	if len(base.Paths) == 0 && base.Values == "" {
		return nil, nodefacts.All(nil), nil
	}
	inv := &inventory.Inventory{}
	if len(base.Paths) > 0 { // no path is no object, never standard input
		var err error
		if inv, err = Files(ctx, base.Config)(false); err != nil {
			return nil, nil, fmt.Errorf("diff: %s: %w", base.Name, err)
		}
		WarnUnread(base.Config, inv)
	}
	p, facts, err := Profile(base.Config, inv)
	if err != nil {
		return nil, nil, fmt.Errorf("diff: %s: %w", base.Name, err)
	}
	if p == nil && base.Named {
		return nil, nil, noConfiguration(base)
	}
	return p, facts, nil
}

func noConfiguration(s Side) error {
	return fmt.Errorf("diff: %s holds no GPU Operator configuration (a ClusterPolicy, NVIDIADrivers, the chart's values or a GitOps object that installs it)", s.Name)
}

// AfterOf is what the rules say of the fleet a run read, for the
// rollout's audit: every finding, those an exception holds back too.
func AfterOf(res *Result) plan.After {
	gangs := make([]plan.Gang, len(res.Gangs))
	for i, g := range res.Gangs {
		gangs[i] = g
	}
	return plan.After{Facts: res.Facts, Catalog: res.Catalog, Findings: AllFindings(res), Gangs: gangs}
}

// AllFindings are a run's findings with those exceptions held back.
func AllFindings(res *Result) []policy.Finding {
	fs := slices.Clone(res.Findings)
	for _, s := range res.Suppressed {
		fs = append(fs, s.Finding)
	}
	return fs
}

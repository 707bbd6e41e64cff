package runner

import (
	"context"

	"github.com/drvcheck/drvcheck/internal/operator"
	"github.com/drvcheck/drvcheck/internal/operator/change"
	"github.com/drvcheck/drvcheck/internal/placement"
	"github.com/drvcheck/drvcheck/internal/plan"
)

// UpgradeFacts returns the drain model of the fleet as it is and the run
// of the fleet once node (every GPU node when "") runs driver; with no
// driver, of the fleet as it is.
func UpgradeFacts(ctx context.Context, cfg Config, read Reader, node, driver string) (*placement.Model, *Result, error) {
	if driver != "" {
		cfg.Upgrade = &Upgrade{Driver: driver}
	}
	if node != "" {
		cfg.Upgrade.Nodes = []string{node}
	}
	res, m, err := RunUpgrade(ctx, cfg, read)
	if err != nil {
		return nil, nil, err
	}
	return m, res, nil
}

// Roll is plan.Roll within the run's deadline: the simulation does not
// watch the context, and on a large fleet, or one built to be slow, it
// runs for seconds after the document is built, so plan --all and diff
// still end at --timeout (exit 2) whatever it is doing.
func Roll(ctx context.Context, m *placement.Model, after plan.After, opt plan.RollingOptions) (*plan.Rolling, error) {
	return untilDone(ctx, func() (*plan.Rolling, error) { return plan.Roll(m, after, opt) })
}

// PendingChange is what the live driver DaemonSets' current templates do
// to each node's driver pod (change.PendingChanges), with the
// operator's release the run read or assumed: plan --all without
// --driver.
func PendingChange(res *Result) func(string) (string, string) {
	v := operator.Newest
	if res.Profile != nil {
		v = res.Profile.Version
	}
	changes := change.PendingChanges(res.Inventory.DaemonSets, res.Inventory.Pods, v, res.Profile.VersionKnown())
	return func(node string) (string, string) {
		c, ok := changes[node]
		if !ok {
			return change.NoOp, "no driver pod runs there"
		}
		return c.Kind, c.Why
	}
}

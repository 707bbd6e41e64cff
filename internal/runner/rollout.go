package runner

import (
	"context"

	"github.com/drvcheck/drvcheck/internal/operator"
	"github.com/drvcheck/drvcheck/internal/operator/change"
	"github.com/drvcheck/drvcheck/internal/placement"
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

package runner

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/cluster"
	"github.com/drvcheck/drvcheck/internal/inventory"
)

// LiveInventory reads kinds (every kind drvcheck uses when none are given)
// from the cluster cl names; keepRaw keeps every object as read, for
// custom rules (input.objects).
func LiveInventory(ctx context.Context, cl cluster.Options, keepRaw bool, kinds ...cluster.Kind) (*inventory.Inventory, error) {
	c, err := cluster.Connect(cl)
	if err != nil {
		return nil, err
	}
	return c.Read(ctx, kinds, keepRaw)
}

// LiveNode gets one node from the cluster cl names.
func LiveNode(ctx context.Context, cl cluster.Options, name string) (*corev1.Node, error) {
	c, err := cluster.Connect(cl)
	if err != nil {
		return nil, err
	}
	return c.Node(ctx, name)
}

// Scan runs every rule over the live cluster cl names, reading kinds (every
// kind drvcheck uses when none are given). cfg.Paths is not read.
func Scan(ctx context.Context, cfg Config, cl cluster.Options, kinds ...cluster.Kind) (*Result, error) {
	return Run(ctx, cfg, func(keepRaw bool) (*inventory.Inventory, error) {
		return LiveInventory(ctx, cl, keepRaw, kinds...)
	})
}

// CheckLiveNodes runs every rule over the manifests under cfg.Paths with
// the cluster's nodes in place of any Node manifests: what a pull request
// would do to today's nodes.
func CheckLiveNodes(ctx context.Context, cfg Config, cl cluster.Options) (*Result, error) {
	return Run(ctx, cfg, func(keepRaw bool) (*inventory.Inventory, error) {
		inv, err := Inventory(cfg, keepRaw)
		if err != nil {
			return nil, err
		}
		live, err := LiveInventory(ctx, cl, keepRaw, cluster.Nodes)
		if err != nil {
			return nil, err
		}
		inv.UseNodes(live)
		return inv, nil
	})
}

package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/cluster"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/load"
)

// Reader reads the objects of a run; keepRaw asks it to keep every object
// as read, which custom rules see as input.objects. There is one per
// source of objects: Files, Live and FilesWithLiveNodes.
type Reader func(keepRaw bool) (*inventory.Inventory, error)

// Files reads the manifests under cfg.Paths. Files that hold no
// Kubernetes object are skipped, unless --strict, and listed in the
// inventory (SkippedFiles).
func Files(ctx context.Context, cfg Config) Reader {
	return func(keepRaw bool) (*inventory.Inventory, error) {
		var mu sync.Mutex
		var skipped []inventory.SkippedFile
		var installs []load.OperatorInstall
		opt := load.Options{Ignore: cfg.Ignore, Stdin: cfg.Stdin, Note: cfg.Warn, FS: cfg.FS,
			MaxFile: int64(cfg.MaxFileSize), MaxTotal: int64(cfg.MaxInputSize), Strict: cfg.Strict, NoRender: cfg.NoRender,
			RenderTimeout: time.Duration(cfg.RenderTimeout),
			Install:       func(i load.OperatorInstall) { installs = append(installs, i) },
			Helm:          load.HelmValues{Files: cfg.HelmValues, Set: cfg.HelmSet},
			Skip: func(path, why string) {
				mu.Lock()
				defer mu.Unlock()
				skipped = append(skipped, inventory.SkippedFile{Path: path, Reason: why})
			}}
		inv, err := inventory.Read(ctx, cfg.Paths, opt, keepRaw)
		if err != nil {
			return nil, err
		}
		slices.SortFunc(skipped, func(a, b inventory.SkippedFile) int { return strings.Compare(a.Path, b.Path) })
		inv.SkippedFiles = skipped
		inv.OperatorInstalls = installs
		return inv, nil
	}
}

// Live reads kinds (every kind drvcheck uses when none are given) from the
// cluster cl names.
func Live(ctx context.Context, cl cluster.Options, kinds ...cluster.Kind) Reader {
	return func(keepRaw bool) (*inventory.Inventory, error) {
		c, err := cluster.Connect(cl)
		if err != nil {
			return nil, err
		}
		return c.Read(ctx, kinds, keepRaw)
	}
}

// FilesWithLiveNodes reads the manifests under cfg.Paths with the
// cluster's nodes in place of any Node manifests: what a pull request
// would do to today's nodes (check --nodes-from-cluster).
func FilesWithLiveNodes(ctx context.Context, cfg Config, cl cluster.Options) Reader {
	return func(keepRaw bool) (*inventory.Inventory, error) {
		inv, err := Files(ctx, cfg)(keepRaw)
		if err != nil {
			return nil, err
		}
		live, err := Live(ctx, cl, cluster.Nodes)(keepRaw)
		if err != nil {
			return nil, err
		}
		inv.UseNodes(live)
		return inv, nil
	}
}

// FilesWithNodes reads the manifests under cfg.Paths with the nodes of
// nodePaths (a drvcheck snapshot nodes file, say) in place of any Node
// manifests: check --nodes, the pull request check that cannot reach the
// cluster. nodePaths may hold Nodes only, so that no workload is read
// twice or dropped unseen.
func FilesWithNodes(ctx context.Context, cfg Config, nodePaths []string) Reader {
	return func(keepRaw bool) (*inventory.Inventory, error) {
		inv, err := Files(ctx, cfg)(keepRaw)
		if err != nil {
			return nil, err
		}
		nodeCfg := cfg
		nodeCfg.Paths = nodePaths
		nodes, err := Files(ctx, nodeCfg)(keepRaw)
		if err != nil {
			return nil, err
		}
		if others := nodes.Objects - len(nodes.Nodes); others > 0 || len(nodes.Nodes) == 0 {
			return nil, fmt.Errorf("--nodes %s: holds %d Nodes and %d other objects; want Nodes only (drvcheck snapshot nodes writes such a file)",
				strings.Join(nodePaths, ", "), len(nodes.Nodes), others)
		}
		inv.UseNodes(nodes)
		return inv, nil
	}
}

// LiveNode gets one node from the cluster cl names.
func LiveNode(ctx context.Context, cl cluster.Options, name string) (*corev1.Node, error) {
	c, err := cluster.Connect(cl)
	if err != nil {
		return nil, err
	}
	return c.Node(ctx, name)
}

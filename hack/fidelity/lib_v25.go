//go:build !libv26

// The library release of go.mod, k8s-operator-libs 7d667fbaa7ac, the one
// GPU Operator v25.3.x vendors: its constructor takes no StateOptions and it
// has no restart-only predicate (pkg/upgrade/upgrade_state.go:123-151).
package main

import (
	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"

	"github.com/NVIDIA/k8s-operator-libs/pkg/upgrade"
)

// newStateManager is gpu-operator v25.3.x cmd/gpu-operator/main.go:155-164.
func newStateManager(log logr.Logger, cfg *rest.Config, recorder record.EventRecorder) (upgrade.ClusterUpgradeStateManager, error) {
	mgr, err := upgrade.NewClusterUpgradeStateManager(log, cfg, recorder)
	if err != nil {
		return nil, err
	}
	return mgr.WithPodDeletionEnabled(gpuPodSpecFilter).WithValidationEnabled(validatorSelector), nil
}

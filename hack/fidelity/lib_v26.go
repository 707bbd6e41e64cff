//go:build libv26

// The library release of go.v26.mod, k8s-operator-libs d720f2557494, the
// one GPU Operator v26.7.0 vendors: its constructor takes StateOptions
// (pkg/upgrade/upgrade_state.go:68-95) and it has the restart-only
// predicate (upgrade_state.go:357-361, common_manager.go:91), consulted for
// a node leaving upgrade-required (upgrade_inplace.go:129-178).
//
// Build with: go build -modfile=go.v26.mod -tags libv26 .
package main

import (
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"

	"github.com/NVIDIA/k8s-operator-libs/pkg/upgrade"
)

// newStateManager is gpu-operator v26.7.0 cmd/gpu-operator/main.go:176-193:
// StateOptions{} (no maintenance operator), the GPU pod filter, the
// validator pods and the restart-only predicate.
func newStateManager(log logr.Logger, cfg *rest.Config, recorder record.EventRecorder) (upgrade.ClusterUpgradeStateManager, error) {
	mgr, err := upgrade.NewClusterUpgradeStateManager(log, cfg, recorder, upgrade.StateOptions{})
	if err != nil {
		return nil, err
	}
	return mgr.WithPodDeletionEnabled(gpuPodSpecFilter).
		WithValidationEnabled(validatorSelector).
		WithRestartOnlyPredicate(driverPodRestartOnly(log)), nil
}

// driverConfigDigestEnv is gpu-operator internal/config/driver_config_digest.go:27.
const driverConfigDigestEnv = "DRIVER_CONFIG_DIGEST"

// driverPodRestartOnly is gpu-operator internal/predicates/restart_only.go:36-50:
// restart the driver pod in place (no pod deletion, no drain) when the running
// pod and the DaemonSet template carry the same non-empty DRIVER_CONFIG_DIGEST;
// a digest missing on either side takes the full upgrade flow. It never fails.
func driverPodRestartOnly(log logr.Logger) upgrade.RestartOnlyPredicate {
	return func(running, desired *corev1.PodSpec) (bool, error) {
		want, have := driverConfigDigest(desired), driverConfigDigest(running)
		if want == "" || have == "" {
			log.V(1).Info("driver config digest missing; taking full upgrade flow",
				"desiredDigest", want, "runningDigest", have)
			return false, nil
		}
		log.V(1).Info("evaluated driver config digest for restart-only routing",
			"desiredDigest", want, "runningDigest", have, "restartOnly", want == have)
		return want == have, nil
	}
}

// driverConfigDigest is gpu-operator internal/config/driver_config_digest.go:32-55:
// the first non-empty DRIVER_CONFIG_DIGEST value (a literal value, not
// valueFrom), init containers first, then containers, whatever their names.
// The operator sets it on the k8s-driver-manager init container, the
// nvidia-driver-ctr container and, on OpenShift, openshift-driver-toolkit-ctr
// (controllers/object_controls.go:1060-1079), so in practice it is the
// k8s-driver-manager's.
func driverConfigDigest(spec *corev1.PodSpec) string {
	if spec == nil {
		return ""
	}
	fromEnv := func(env []corev1.EnvVar) string {
		for _, e := range env {
			if e.Name == driverConfigDigestEnv {
				return e.Value
			}
		}
		return ""
	}
	for _, c := range spec.InitContainers {
		if v := fromEnv(c.Env); v != "" {
			return v
		}
	}
	for _, c := range spec.Containers {
		if v := fromEnv(c.Env); v != "" {
			return v
		}
	}
	return ""
}

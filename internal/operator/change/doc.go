// Package change says what a change of the GPU Operator's configuration
// does to the driver pods (drvcheck diff): each field of the operator's
// objects classed by where the operator puts it (in DRIVER_CONFIG_DIGEST,
// in the driver pod's template only, or in neither), and so each scope
// and each GPU node a no-op, a restart-only upgrade, a full rollout or a
// removal (change.go, nodechange.go); and, live, what the driver
// DaemonSets' current templates already ask of each pod (pending.go). It
// reads the profiles internal/operator builds, which knows nothing of it.
package change

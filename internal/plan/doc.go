// Package plan turns the drain model into the driver upgrade of one node as
// ordered steps (image, budget room, drain, relabel/reload, uncordon,
// audit), each with what blocks it now and the smallest change that
// unblocks it, and into a rolling simulation of the whole fleet the way the
// GPU Operator upgrades it, maxParallelUpgrades nodes at a time. It works
// on an inventory from files or from a cluster alike.
package plan

// Package operator says which driver image the NVIDIA GPU Operator pulls
// for each node, as the operator composes it (its ClusterPolicy and
// NVIDIADriver code, see docs/input.md and the reference it cites): the
// profile of one run comes from the driver flags, else the ClusterPolicy
// and NVIDIADriver objects read (and the operator Deployment's version),
// else the chart's values file; without any, the lab's model holds (the
// precompiled tag from the node's own labels). For each GPU node it gives
// the owner, whether a driver is deployed there at all and why not, the
// OS tag by operator version, and the reference.
package operator

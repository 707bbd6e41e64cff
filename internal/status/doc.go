// Package status reports where each GPU node's driver upgrade stands: its
// driver, kernel, image tag and whether that image exists, its
// nvidia.com/gpu-driver-upgrade-state, whether it is cordoned, and the
// finding that explains a stall (a budget that refuses the drain, a pod
// that needs force, a missing image, a node left cordoned).
package status

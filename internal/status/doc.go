// Package status reports where each GPU node's driver upgrade stands: its
// driver, kernel, image tag and whether that image exists, its
// nvidia.com/gpu-driver-upgrade-state, whether it is cordoned, and the
// finding that explains a stall. It reads the run's node facts and
// findings only: which finding holds which node is the rules' to say.
package status

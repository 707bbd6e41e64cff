// Package gpures is what GPU resources a pod asks for and a node offers,
// as the scheduler counts them: the extended resources NVIDIA's device
// plugin advertises (nvidia.com/gpu, nvidia.com/gpu.shared when
// time-slicing renames it, nvidia.com/mig-<profile> under the mixed MIG
// strategy), from a node's status.allocatable, or, for a node manifest
// without status, from the labels GPU Feature Discovery writes beside
// them. The drain model, the rules' input document and the rollout read
// them from here.
package gpures

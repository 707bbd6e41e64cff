// Package workload builds the input document's sections on what workloads
// ask of the nodes (docs/input.md): input.workloads, for every workload
// where the scheduler may put its pods and what can go wrong there
// (placement, Gt/Lt, unknown label keys, anti-affinity, the CUDA driver
// floor, GPU use, GPU fit, gangs, DRA claims), and input.claims, each DRA
// claim judged on the fleet. GPU fit and gangs are judged in
// internal/input/workload/gpufit; internal/input puts the sections in the
// document.
package workload

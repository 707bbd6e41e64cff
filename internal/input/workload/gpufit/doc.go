// Package gpufit judges what workloads' pods ask of the GPUs against what
// the nodes offer (internal/gpures), for the input document's workloads:
// gpu_fit, whether one pod fits an empty node its constraints admit,
// worded as the scheduler's FitError with the nearest change that lets it
// run; and gang, whether all the pods of a gang fit at once, packed best
// fit decreasing on what the nodes offer less what the pods bound to them
// take. internal/input/workload puts both in each workload's entry.
package gpufit

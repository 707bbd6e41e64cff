// Package dra judges Dynamic Resource Allocation claims (resource.k8s.io/v1
// ResourceClaims and ResourceClaimTemplates) against the devices nodes
// publish: a request's device class and CEL selectors are evaluated with
// the library the scheduler's allocator uses (k8s.io/dynamic-resource-
// allocation/cel), on every distinct device once. Live, the devices are the
// cluster's ResourceSlices; from files, the GPUs NVIDIA's DRA driver would
// publish for a node, derived from GPU Feature Discovery's labels.
package dra

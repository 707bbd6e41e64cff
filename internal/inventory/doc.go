// Package inventory holds the typed Kubernetes objects drvcheck reasons
// about (Nodes, Pods, workload controllers, PodDisruptionBudgets), wherever
// they came from: manifests in files or a live cluster. It decodes loaded
// manifests into the API types with apimachinery's converter (or has
// load decode them straight from their YAML, DirectType), checks their
// API versions, and gives every workload kind one shape (Workload) with its
// pod template, so that later stages never switch on kinds again.
package inventory

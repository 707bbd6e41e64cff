// Package snapshot writes what a pull request check needs to know of a
// cluster's nodes (every node, or its GPU nodes alone), and nothing else:
// their names, labels, taints,
// cordon, allocatable resources, condition statuses and the GPU Operator's
// annotations, as a YAML List that check --nodes reads. Addresses, other
// annotations and every timestamp are left out, so the file can be
// committed to a repository, and it changes only when a node does.
package snapshot

// Package drain predicts whether the GPU Operator (or kubectl drain) can
// empty a node: which pods sit on it, which PodDisruptionBudgets refuse
// their eviction, and what a drain needs --force or --delete-emptydir-data
// for. Where evicted replicas land, and the drains replayed one eviction
// at a time, are internal/placement's, which builds on this package.
//
// It follows Kubernetes' own rules, ported from their source: the
// disruption controller's arithmetic (arithmetic.go; kubernetes
// pkg/controller/disruption/disruption.go), the eviction subresource's
// answers (eviction.go; pkg/registry/core/pod/storage/eviction.go) and
// kubectl drain's pod filters (filters.go; kubectl pkg/drain/filters.go),
// which the GPU Operator's upgrade phases apply to the pods they take
// (phase.go, policy.go). The Model (model.go) is the pods and budgets of
// one inventory. From a cluster they are the cluster's pods and the
// budgets' own status (cluster.go). From files, the pods are a model
// (files.go): the replicas of Deployments, ReplicaSets and StatefulSets
// plus bare Pods, all Ready, which a Placer lands on nodes before the
// budgets count them; the replicas no node takes are one counted entry,
// never one pod each.
package drain

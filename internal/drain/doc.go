// Package drain predicts whether the GPU Operator (or kubectl drain) can
// empty a node: which pods sit on it, which PodDisruptionBudgets refuse
// their eviction, what a drain needs --force or --delete-emptydir-data for,
// and where evicted replicas land afterwards.
//
// It follows Kubernetes' own rules, ported from their source: the
// disruption controller's arithmetic (arithmetic.go; kubernetes
// pkg/controller/disruption/disruption.go), the eviction subresource's
// answers (eviction.go; pkg/registry/core/pod/storage/eviction.go) and
// kubectl drain's pod filters (filters.go; kubectl pkg/drain/filters.go). From files, the pods are a model (files.go): the
// replicas of Deployments, ReplicaSets and StatefulSets plus bare Pods, all
// Ready, placed on nodes with internal/sched, the pods and GPUs each node
// allocates (capacity.go) and required pod anti-affinity (placer.go); the
// replicas no node takes are one counted entry, never one pod each. From a cluster they are the cluster's pods and the budgets'
// own status (cluster.go). Sim (sim.go) then drains nodes one eviction at a
// time, as the API server uses a budget up pod by pod. Its searches for a
// replacement's node test only nodes that can have room (roomy.go) and
// remember what failed until room is freed (noroom.go), which keeps a full
// fleet from costing a walk of every node per pod; an uncordon decides the
// waiting replacements per search (uncordon.go). A Sim's clone shares what
// the Sim had moved (layered.go): a rollout clones its simulation for
// every node a budget blocks.
package drain

// Package sched predicts where the scheduler may place a pod, with the
// scheduler's own code and words. It applies, in the scheduler's order, the
// filters drvcheck can judge from objects alone: NodeUnschedulable (cordon),
// TaintToleration (NoSchedule/NoExecute) and NodeAffinity (required node
// affinity together with nodeSelector, from k8s.io/component-helpers). It
// also reads the parts of a pod spec that other checks need: its node label
// requirements with their paths, its required anti-affinity terms (the one
// parser of them, for internal/placement's rules and for a workload against
// its own pods), and the topology domains a placement spans.
//
// Nodes are grouped into classes that look the same to those filters: the
// same values of the fleet's label keys, the same taints and the same
// cordon. Each spec then splits those classes only by what it can tell
// apart itself: for a key it compares with In/NotIn/Exists, whether the
// value is one it names; for Gt/Lt, the value. Thousands of nodes usually
// fall into a few dozen classes, so a pod spec is matched once per class,
// never once per node, and specs with the same scheduling constraints share
// one result.
package sched

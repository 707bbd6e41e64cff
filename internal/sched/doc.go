// Package sched predicts where the scheduler may place a pod, with the
// scheduler's own code and words. It applies, in the scheduler's order, the
// filters drvcheck can judge from objects alone: NodeUnschedulable (cordon),
// TaintToleration (NoSchedule/NoExecute) and NodeAffinity (required node
// affinity together with nodeSelector, from k8s.io/component-helpers).
//
// Nodes are grouped into classes that look the same to those filters: the
// same values of the label keys some workload refers to, the same taints and
// the same cordon. Thousands of nodes usually fall into a few dozen classes,
// so a pod spec is matched once per class, never once per node, and specs
// with the same scheduling constraints share one result.
package sched

package drain

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/object"
)

// Pod is one pod of the model: a cluster's pod, or from files one replica
// of a workload (named <workload>-<ordinal>) or a bare Pod. From files,
// the replicas of a workload that no node can take are one Pod on no node
// with their Count, named <workload>-<first>..<last>: a workload may ask
// for billions of replicas, and they differ in nothing but their names.
type Pod struct {
	Namespace, Name string
	// Count is how many identical replicas the Pod stands for: 1 on a node.
	Count  int32
	Labels map[string]string
	Spec   *corev1.PodSpec
	// Workload is the object that made the pod: a Deployment (also for the
	// pods of its ReplicaSets), ReplicaSet, StatefulSet, other controller,
	// or the Pod itself when it has none. SpecPath is where the pod spec
	// sits in the workload's manifest, for field lines.
	Workload object.Ref
	SpecPath []any
	// Controller identifies the pod's controller for the budget arithmetic
	// ("" when it has none); Scale and ScaleErr are that controller's.
	Controller string
	Scale      int32
	ScaleErr   string
	// Node is where the pod runs as read; "" when it is on no node (files:
	// no node passes the scheduler's filters).
	Node     string
	Phase    corev1.PodPhase
	Ready    bool
	Deleting bool
	// Verdict is what kubectl drain's filters make of the pod.
	Verdict Verdict
	// GPUClaim: the pod holds a GPU through a DRA claim (live only).
	GPUClaim bool
	// Budgets are the PodDisruptionBudgets that select the pod.
	Budgets []*Budget
	// Group is what internal/placement keeps of the pods that look alike
	// to the scheduler (its requests, anti-affinity and spread, its search
	// key), shared by a workload's replicas; drain never reads it.
	Group any
}

// Key is namespace/name.
func (p *Pod) Key() string { return p.Namespace + "/" + p.Name }

// Keys names pods the way Key does, in order.
func Keys(ps []*Pod) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Key()
	}
	return out
}

// Healthy is the disruption controller's test: not being deleted and Ready.
func (p *Pod) Healthy() bool { return !p.Deleting && p.Ready }

// skipsBudgets: the eviction API deletes finished, Pending and deleting
// pods without a budget check.
func (p *Pod) skipsBudgets() bool {
	switch p.Phase {
	case corev1.PodSucceeded, corev1.PodFailed, corev1.PodPending:
		return true
	}
	return p.Deleting
}

// Candidate is p as the eviction API sees it.
func (p *Pod) Candidate() Candidate {
	return Candidate{Phase: p.Phase, Deleting: p.Deleting, Ready: p.Ready}
}

func (p *Pod) member() Member {
	return Member{Name: p.Name, Controller: p.Controller, Scale: p.Scale, ScaleErr: p.ScaleErr, Healthy: p.Healthy(), Count: p.Count}
}

// Replicas is the entry for n replicas of run from ordinal first on: a
// controller's replicas are named by ordinal, a bare Pod keeps its name.
func (run *Pod) Replicas(first, n int32) *Pod {
	p := *run
	p.Count = n
	if run.Workload.Kind != "Pod" {
		p.Name = fmt.Sprintf("%s-%d", run.Name, first)
		if n > 1 {
			p.Name += fmt.Sprintf("..%d", first+n-1)
		}
	}
	return &p
}

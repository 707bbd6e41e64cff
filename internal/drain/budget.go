package drain

import (
	"fmt"

	"github.com/drvcheck/drvcheck/internal/object"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Status sources of a budget's numbers.
const (
	// Computed: from files, with the disruption controller's arithmetic
	// over the modelled pods.
	Computed = "computed"
	// Observed: the cluster's status, current with the budget's generation.
	Observed = "observed"
	// Stale: the cluster's status lags the budget's generation, so it is
	// unknown; the numbers are computed from the cluster's pods instead,
	// and the eviction API answers 429 until the controller catches up.
	Stale = "stale"
)

// Budget is a PodDisruptionBudget joined with the pods it selects.
type Budget struct {
	PDB      *policyv1.PodDisruptionBudget
	Ref      object.Ref
	Selector labels.Selector
	// Pods are the pods it selects, in its namespace.
	Pods []*Pod
	// Templates are the workloads (of any kind) whose pod template it
	// selects; a budget with no pod and no template selects nothing.
	Templates []object.Ref
	// Count is the status the eviction API reads: the cluster's (Observed)
	// or computed (Computed, Stale).
	Count  Count
	Status string
	// StatusNote says why a cluster's status was not used.
	StatusNote string
}

// Name is the budget's name.
func (b *Budget) Name() string { return b.PDB.Name }

// SelectorText summarises the selector for people.
func (b *Budget) SelectorText() string {
	switch s := b.PDB.Spec.Selector; {
	case s == nil:
		return "(none: selects nothing)"
	case len(s.MatchLabels)+len(s.MatchExpressions) == 0:
		return "(empty: selects every pod in " + b.Ref.Namespace + ")"
	}
	return b.Selector.String()
}

// Rule words the budget's spec, e.g. "minAvailable 4".
func (b *Budget) Rule() string {
	s := b.PDB.Spec
	switch {
	case s.MaxUnavailable != nil:
		return "maxUnavailable " + s.MaxUnavailable.String()
	case s.MinAvailable != nil:
		return "minAvailable " + s.MinAvailable.String()
	}
	return "neither minAvailable nor maxUnavailable"
}

// Size is how many pods it selects, the replicas no node can take included.
func (b *Budget) Size() int32 {
	var n int64
	for _, p := range b.Pods {
		n += int64(p.Count)
	}
	return saturate(n)
}

// Overlapping lists its pods that another budget selects too: the eviction
// API answers 500 for them.
func (b *Budget) Overlapping() []*Pod {
	var out []*Pod
	for _, p := range b.Pods {
		if len(p.Budgets) > 1 {
			out = append(out, p)
		}
	}
	return out
}

// Nodes lists the nodes its pods run on, in pod order, once each.
func (b *Budget) Nodes() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range b.Pods {
		if p.Node != "" && !seen[p.Node] {
			seen[p.Node] = true
			out = append(out, p.Node)
		}
	}
	return out
}

// Gate is the budget, with its numbers c, as the eviction subresource
// reads it.
func (b *Budget) Gate(c Count) *Gate {
	gen := b.PDB.Generation
	return &Gate{
		Name: b.PDB.Name, Generation: gen, ObservedGen: gen,
		Allowed: c.Allowed, CurrentHealthy: c.Healthy, Desired: c.Desired,
		SyncErr:                    c.SyncErr,
		UnhealthyPodEvictionPolicy: b.PDB.Spec.UnhealthyPodEvictionPolicy,
	}
}

// newBudget parses pdb's selector with apimachinery: nil selects nothing,
// {} everything.
func newBudget(pdb *policyv1.PodDisruptionBudget, where func(object.Ref) string) (*Budget, error) {
	ref := object.Ref{Kind: "PodDisruptionBudget", Namespace: pdb.Namespace, Name: pdb.Name}
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("%s: spec.selector: %w", where(ref), err)
	}
	return &Budget{PDB: pdb, Ref: ref, Selector: sel}, nil
}

// count fills Count: from files, the arithmetic over the modelled pods;
// from a cluster, the budget's status unless it lags its generation.
func (b *Budget) count(live bool) {
	members := make([]Member, len(b.Pods))
	for i, p := range b.Pods {
		members[i] = p.member()
	}
	computed := Compute(b.PDB.Spec, members)
	b.Count, b.Status = computed, Computed
	if !live {
		return
	}
	st := b.PDB.Status
	if st.ObservedGeneration < b.PDB.Generation {
		b.Status = Stale
		b.StatusNote = fmt.Sprintf("status is unknown: observedGeneration %d lags generation %d (the disruption controller has not caught up; evictions get 429 until it does); counted from the pods instead",
			st.ObservedGeneration, b.PDB.Generation)
		return
	}
	b.Status = Observed
	b.Count = Count{
		Expected: st.ExpectedPods, Desired: st.DesiredHealthy, Healthy: st.CurrentHealthy,
		Allowed: st.DisruptionsAllowed, Unmanaged: computed.Unmanaged, SyncErr: syncFailure(st),
	}
}

// syncFailure is the message of a DisruptionAllowed=False/SyncFailed
// condition, the mark failSafe leaves.
func syncFailure(st policyv1.PodDisruptionBudgetStatus) string {
	for _, c := range st.Conditions {
		if c.Type == policyv1.DisruptionAllowedCondition && c.Status == metav1.ConditionFalse && c.Reason == policyv1.SyncFailedReason {
			return c.Message
		}
	}
	return ""
}

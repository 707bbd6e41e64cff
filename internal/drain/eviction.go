package drain

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
)

// Gate is the part of a PodDisruptionBudget the eviction subresource reads.
type Gate struct {
	Name                       string
	Generation, ObservedGen    int64
	Allowed                    int32
	CurrentHealthy, Desired    int32
	DisruptedPods              int
	SyncErr                    string // the DisruptionAllowed condition's message after failSafe
	UnhealthyPodEvictionPolicy *policyv1.UnhealthyPodEvictionPolicyType
}

// Candidate is the part of a pod the eviction subresource reads.
type Candidate struct {
	Phase    corev1.PodPhase
	Deleting bool // deletionTimestamp is set
	Ready    bool // the Ready condition is True
}

// HTTP codes of the eviction subresource's answers.
const (
	Evicted         = 200
	TooManyRequests = 429 // the budget refuses now; kubectl retries every 5s
	Forbidden       = 403
	ServerError     = 500 // more than one budget: kubectl gives up
)

// Messages of the eviction subresource (pkg/registry/core/pod/storage/eviction.go).
const (
	msgViolates      = "Cannot evict pod as it would violate the pod's disruption budget."
	msgMultiple      = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
	maxDisruptedPods = 2000
)

// Outcome is the eviction subresource's answer for one pod.
type Outcome struct {
	Code    int
	Message string // the Status message kubectl prints
	Cause   string // the DisruptionBudget cause, naming the budget
	Budget  *Gate  // the budget that decided, when one did
	// Counted is true when the eviction used up one of Budget's allowed
	// disruptions.
	Counted bool
}

// Evict answers an eviction of pod under the budgets that select it, as
// EvictionREST.Create does (kubernetes pkg/registry/core/pod/storage/eviction.go), and uses up the budget on
// success, so that calling it pod after pod replays one drain:
//
//  1. Succeeded, Failed, Pending or deleting pods are deleted without a
//     budget check.
//  2. More than one budget: 500. None: evicted.
//  3. An unready pod is evicted without counting when the policy is
//     AlwaysAllow, or (nil/IfHealthyBudget) the budget is healthy:
//     currentHealthy >= desiredHealthy > 0.
//  4. A budget whose status lags its generation: 429 ("still being
//     processed"). Negative allowed or too many pending: 403. Zero: 429.
//  5. Otherwise allowed goes down by one and the pod is evicted.
func Evict(pod Candidate, budgets []*Gate) Outcome {
	switch pod.Phase {
	case corev1.PodSucceeded, corev1.PodFailed, corev1.PodPending:
		return Outcome{Code: Evicted}
	}
	if pod.Deleting {
		return Outcome{Code: Evicted}
	}
	switch len(budgets) {
	case 0:
		return Outcome{Code: Evicted}
	case 1:
	default:
		return Outcome{Code: ServerError, Message: msgMultiple}
	}
	b := budgets[0]
	if !pod.Ready && unhealthyMayGo(b) {
		return Outcome{Code: Evicted, Budget: b}
	}
	switch {
	case b.ObservedGen < b.Generation:
		return Outcome{Code: TooManyRequests, Message: msgViolates, Budget: b,
			Cause: fmt.Sprintf("The disruption budget %s is still being processed by the server.", b.Name)}
	case b.Allowed < 0:
		return Outcome{Code: Forbidden, Message: "pdb disruptions allowed is negative", Budget: b,
			Cause: fmt.Sprintf("The disruption budget %s does not allow evicting pods currently: pdb disruptions allowed is negative", b.Name)}
	case b.DisruptedPods > maxDisruptedPods:
		return Outcome{Code: Forbidden, Message: "DisruptedPods map too big - too many evictions not confirmed by PDB controller", Budget: b,
			Cause: fmt.Sprintf("The disruption budget %s does not allow evicting pods currently: too many pending evictions not confirmed by PDB controller", b.Name)}
	case b.Allowed == 0:
		return Outcome{Code: TooManyRequests, Message: msgViolates, Budget: b, Cause: zeroCause(b)}
	}
	b.Allowed--
	return Outcome{Code: Evicted, Budget: b, Counted: true}
}

// unhealthyMayGo is the unhealthyPodEvictionPolicy check for an unready pod.
func unhealthyMayGo(b *Gate) bool {
	p := b.UnhealthyPodEvictionPolicy
	switch {
	case p != nil && *p == policyv1.AlwaysAllow:
		return true
	case p == nil || *p == policyv1.IfHealthyBudget:
		return b.CurrentHealthy >= b.Desired && b.Desired > 0
	}
	return false // an unknown policy falls through to the budget check
}

// zeroCause words the 429's cause as the API server does.
func zeroCause(b *Gate) string {
	switch {
	case b.SyncErr != "":
		return fmt.Sprintf("The disruption budget %s does not allow evicting pods currently because it failed sync: %s", b.Name, b.SyncErr)
	case b.CurrentHealthy <= b.Desired:
		return fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", b.Name, b.Desired, b.CurrentHealthy)
	}
	return fmt.Sprintf("The disruption budget %s does not allow evicting pods currently", b.Name)
}

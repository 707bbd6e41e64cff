package drain

import (
	"math"

	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Member is one pod a budget selects, as the disruption controller sees it.
type Member struct {
	Name string
	// Controller identifies the pod's controller; "" when it has none.
	Controller string
	// Scale is the controller's spec.replicas (a ReplicaSet of a Deployment
	// counts the Deployment's).
	Scale int32
	// ScaleErr is set when the controller's scale cannot be read ("found no
	// controllers for pod ..."); the controller then fails safe.
	ScaleErr string
	// Healthy: not being deleted and Ready.
	Healthy bool
	// Count is how many identical pods the member stands for (0 is 1).
	Count int32
}

func (p Member) count() int64 { return int64(max(p.Count, 1)) }

// Count is a budget's status as the disruption controller computes it.
type Count struct {
	Expected, Desired, Healthy, Allowed int32
	// Unmanaged names the pods without a controller; under maxUnavailable or
	// a percentage they add nothing to Expected.
	Unmanaged []string
	// SyncErr is why the controller could not compute the status; it then
	// sets Allowed to 0 (failSafe).
	SyncErr string
}

// Compute is getExpectedPodCount, countHealthyPods and updatePdbStatus of
// pkg/controller/disruption (kubernetes pkg/controller/disruption):
//
//	maxUnavailable (int or %): expected = sum of controller scales,
//	    desired = max(0, expected - ceil(maxUnavailable of expected))
//	minAvailable int:          expected = number of selected pods, desired = minAvailable
//	minAvailable %:            expected = sum of controller scales,
//	    desired = ceil(minAvailable% of expected)
//	allowed = healthy - desired, 0 when negative or when expected <= 0.
//
// Percentages round up in both directions (GetScaledValueFromIntOrPercent
// with roundUp=true).
func Compute(spec policyv1.PodDisruptionBudgetSpec, pods []Member) Count {
	var c Count
	var size, healthy int64
	for _, p := range pods {
		if p.Controller == "" {
			c.Unmanaged = append(c.Unmanaged, p.Name)
		}
		size += p.count()
		if p.Healthy {
			healthy += p.count()
		}
	}
	c.Healthy = saturate(healthy)
	var err error
	switch {
	case spec.MaxUnavailable != nil:
		c.Expected, err = expectedScale(pods)
		if err == nil {
			var mu int
			mu, err = intstr.GetScaledValueFromIntOrPercent(spec.MaxUnavailable, int(c.Expected), true)
			c.Desired = max(0, c.Expected-int32(mu))
		}
	case spec.MinAvailable != nil && spec.MinAvailable.Type == intstr.Int:
		c.Expected, c.Desired = saturate(size), spec.MinAvailable.IntVal
	case spec.MinAvailable != nil:
		c.Expected, err = expectedScale(pods)
		if err == nil {
			var ma int
			ma, err = intstr.GetScaledValueFromIntOrPercent(spec.MinAvailable, int(c.Expected), true)
			c.Desired = int32(ma)
		}
	}
	if err != nil {
		c.SyncErr = err.Error()
	}
	c.Allowed = Allowed(c.Expected, c.Desired, c.Healthy, c.SyncErr != "")
	return c
}

// Allowed is updatePdbStatus' disruptionsAllowed, and failSafe's 0.
func Allowed(expected, desired, healthy int32, syncFailed bool) int32 {
	a := healthy - desired
	if syncFailed || expected <= 0 || a <= 0 {
		return 0
	}
	return a
}

// expectedScale is getExpectedScale: the scales of the selected pods'
// controllers, each controller counted once; pods without one are skipped.
func expectedScale(pods []Member) (int32, error) {
	seen := map[string]bool{}
	var sum int64
	for _, p := range pods {
		if p.Controller == "" || seen[p.Controller] {
			continue
		}
		if p.ScaleErr != "" {
			return 0, scaleError(p.ScaleErr)
		}
		seen[p.Controller] = true
		sum += int64(p.Scale)
	}
	return saturate(sum), nil
}

// saturate keeps a sum of counts in the status' int32. The controller's
// own sums would wrap, but no cluster holds 2^31 pods: only replicas
// asked of files reach it.
func saturate(n int64) int32 { return int32(min(n, math.MaxInt32)) }

type scaleError string

func (e scaleError) Error() string { return string(e) }

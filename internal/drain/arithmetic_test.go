package drain

import (
	"fmt"
	"testing"

	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// replicas are n healthy pods of one controller whose scale is n.
func replicas(controller string, n int32) []Member {
	out := make([]Member, n)
	for i := range out {
		out[i] = Member{Name: fmt.Sprintf("%s-%d", controller, i), Controller: controller, Scale: n, Healthy: true}
	}
	return out
}

func naked(names ...string) []Member {
	out := make([]Member, len(names))
	for i, n := range names {
		out[i] = Member{Name: n, Healthy: true}
	}
	return out
}

func join(groups ...[]Member) []Member {
	var out []Member
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func minAvail(v intstr.IntOrString) policyv1.PodDisruptionBudgetSpec {
	return policyv1.PodDisruptionBudgetSpec{MinAvailable: &v}
}

func maxUnavail(v intstr.IntOrString) policyv1.PodDisruptionBudgetSpec {
	return policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &v}
}

var (
	num = intstr.FromInt32
	pct = intstr.FromString
)

// Each case states what the disruption controller answers
// (kubernetes pkg/controller/disruption): expected, desired, healthy, allowed.
func TestComputeAsTheDisruptionController(t *testing.T) {
	unready := replicas("Deployment/a", 3)
	unready[2].Healthy = false
	lost := replicas("Deployment/a", 4)[:2] // scale 4, only 2 pods exist
	missing := replicas("ReplicaSet/gone", 2)
	missing[0].ScaleErr, missing[1].ScaleErr = `found no controllers for pod "gone-0"`, `found no controllers for pod "gone-1"`

	cases := []struct {
		name  string
		spec  policyv1.PodDisruptionBudgetSpec
		pods  []Member
		want  [4]int32 // expected, desired, healthy, allowed
		unman int
		sync  bool
	}{
		// The lab: minAvailable 4 over 4 replicas refuses every eviction.
		{"lab: minAvailable 4 of 4", minAvail(num(4)), replicas("Deployment/trainer", 4), [4]int32{4, 4, 4, 0}, 0, false},
		{"lab fixed: minAvailable 3 of 4", minAvail(num(3)), replicas("Deployment/trainer", 4), [4]int32{4, 3, 4, 1}, 0, false},
		// Percentages round up, for maxUnavailable too: ceil(50% of 3) = 2
		// unavailable, so 1 must stay (the reference's example).
		{"maxUnavailable 50% of 3 rounds up", maxUnavail(pct("50%")), replicas("Deployment/a", 3), [4]int32{3, 1, 3, 2}, 0, false},
		{"minAvailable 50% of 3 rounds up", minAvail(pct("50%")), replicas("Deployment/a", 3), [4]int32{3, 2, 3, 1}, 0, false},
		{"minAvailable 34% of 3: ceil(1.02) = 2", minAvail(pct("34%")), replicas("Deployment/a", 3), [4]int32{3, 2, 3, 1}, 0, false},
		{"minAvailable 100% of 4", minAvail(pct("100%")), replicas("Deployment/a", 4), [4]int32{4, 4, 4, 0}, 0, false},
		{"maxUnavailable 1% of 4: ceil(0.04) = 1", maxUnavail(pct("1%")), replicas("Deployment/a", 4), [4]int32{4, 3, 4, 1}, 0, false},
		{"maxUnavailable 0", maxUnavail(num(0)), replicas("Deployment/a", 4), [4]int32{4, 4, 4, 0}, 0, false},
		{"maxUnavailable 0%", maxUnavail(pct("0%")), replicas("Deployment/a", 4), [4]int32{4, 4, 4, 0}, 0, false},
		{"maxUnavailable above scale floors desired at 0", maxUnavail(num(9)), replicas("Deployment/a", 2), [4]int32{2, 0, 2, 2}, 0, false},
		// Naked pods: an integer minAvailable counts them all...
		{"naked pods, minAvailable 1", minAvail(num(1)), naked("p", "q"), [4]int32{2, 1, 2, 1}, 2, false},
		// ...maxUnavailable and percentages count controllers' scale only, so
		// a budget over naked pods alone never allows a disruption.
		{"naked pods, maxUnavailable 1", maxUnavail(num(1)), naked("p", "q"), [4]int32{0, 0, 2, 0}, 2, false},
		{"naked pods, minAvailable 50%", minAvail(pct("50%")), naked("p", "q"), [4]int32{0, 0, 2, 0}, 2, false},
		// Mixed: a Deployment of 2 and a naked pod under maxUnavailable 1.
		// The naked pod adds no scale but is healthy: allowed 2 (reference).
		{"mixed: Deployment 2 + naked, maxUnavailable 1", maxUnavail(num(1)), join(replicas("Deployment/a", 2), naked("p")), [4]int32{2, 1, 3, 2}, 1, false},
		{"mixed: Deployment 2 + naked, minAvailable 2", minAvail(num(2)), join(replicas("Deployment/a", 2), naked("p")), [4]int32{3, 2, 3, 1}, 1, false},
		// Mixed controllers: scales add up, each controller once.
		{"Deployment 3 + StatefulSet 2, minAvailable 60%", minAvail(pct("60%")), join(replicas("Deployment/a", 3), replicas("StatefulSet/b", 2)), [4]int32{5, 3, 5, 2}, 0, false},
		{"Deployment 3 + StatefulSet 2, maxUnavailable 30%", maxUnavail(pct("30%")), join(replicas("Deployment/a", 3), replicas("StatefulSet/b", 2)), [4]int32{5, 3, 5, 2}, 0, false},
		// Scale counts even pods that do not exist yet.
		{"scale 4 with 2 pods, maxUnavailable 1", maxUnavail(num(1)), lost, [4]int32{4, 3, 2, 0}, 0, false},
		{"an unready pod is not healthy", minAvail(num(2)), unready, [4]int32{3, 2, 2, 0}, 0, false},
		// A controller that cannot be found fails safe: 0 allowed...
		{"controller not found, maxUnavailable 1", maxUnavail(num(1)), missing, [4]int32{0, 0, 2, 0}, 0, true},
		// ...but an integer minAvailable never looks controllers up.
		{"controller not found, minAvailable 1", minAvail(num(1)), missing, [4]int32{2, 1, 2, 1}, 0, false},
		{"neither field set", policyv1.PodDisruptionBudgetSpec{}, replicas("Deployment/a", 2), [4]int32{0, 0, 2, 0}, 0, false},
		{"selects nothing", minAvail(num(0)), nil, [4]int32{0, 0, 0, 0}, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Compute(c.spec, c.pods)
			if have := [4]int32{got.Expected, got.Desired, got.Healthy, got.Allowed}; have != c.want {
				t.Errorf("expected/desired/healthy/allowed = %v, want %v", have, c.want)
			}
			if len(got.Unmanaged) != c.unman {
				t.Errorf("unmanaged %v, want %d", got.Unmanaged, c.unman)
			}
			if (got.SyncErr != "") != c.sync {
				t.Errorf("sync error %q, want failed=%v", got.SyncErr, c.sync)
			}
		})
	}
}

// Overlapping budgets: the disruption controller computes each on its own
// (both allow here), yet the eviction API answers 500 for every pod they
// share (the disruption controller counts such a pod under each; the eviction API answers 500).
func TestOverlappingBudgetsAreComputedApartAndRefusedTogether(t *testing.T) {
	pods := replicas("Deployment/web", 3)
	cases := []struct {
		name    string
		spec    policyv1.PodDisruptionBudgetSpec
		allowed int32
	}{
		{"by-app minAvailable 1", minAvail(num(1)), 2},
		{"by-tier maxUnavailable 1", maxUnavail(num(1)), 1},
	}
	var gates []*Gate
	for _, c := range cases {
		got := Compute(c.spec, pods)
		if got.Allowed != c.allowed {
			t.Fatalf("%s: allowed %d, want %d", c.name, got.Allowed, c.allowed)
		}
		gates = append(gates, gate(c.name, got.Allowed, got.Healthy, got.Desired))
	}
	if o := Evict(running, gates); o.Code != ServerError || o.Message != msgMultiple {
		t.Fatalf("eviction under both: %d %q, want 500", o.Code, o.Message)
	}
}

// A member standing for many identical pods counts as that many, and sums
// past what an int32 status holds stay at its maximum instead of wrapping.
func TestComputeCountsMembersByTheirCount(t *testing.T) {
	run := []Member{{Name: "w-0", Controller: "Deployment/w", Scale: 10, Healthy: true},
		{Name: "w-1..9", Controller: "Deployment/w", Scale: 10, Healthy: true, Count: 9}}
	if c := Compute(minAvail(num(4)), run); c.Expected != 10 || c.Healthy != 10 || c.Allowed != 6 {
		t.Errorf("minAvailable 4 of a run of 10: %+v", c)
	}
	huge := []Member{{Name: "a-0..", Controller: "Deployment/a", Scale: 2147483647, Healthy: true, Count: 2147483647},
		{Name: "b-0..", Controller: "Deployment/b", Scale: 2147483647, Healthy: true, Count: 2147483647}}
	c := Compute(maxUnavail(num(1)), huge)
	if c.Expected != 2147483647 || c.Healthy != 2147483647 || c.Desired != 2147483646 || c.Allowed != 1 {
		t.Errorf("two runs of 2^31-1: %+v", c)
	}
	if c := Compute(minAvail(num(1)), huge); c.Expected != 2147483647 || c.Allowed != 2147483646 {
		t.Errorf("minAvailable 1 of two runs of 2^31-1: %+v", c)
	}
}

package drain

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
)

var running = Candidate{Phase: corev1.PodRunning, Ready: true}

func gate(name string, allowed, healthy, desired int32) *Gate {
	return &Gate{Name: name, Generation: 1, ObservedGen: 1, Allowed: allowed, CurrentHealthy: healthy, Desired: desired}
}

func policy(p policyv1.UnhealthyPodEvictionPolicyType) *policyv1.UnhealthyPodEvictionPolicyType {
	return &p
}

// Each case states the eviction subresource's answer (kubernetes pkg/registry/core/pod/storage/eviction.go).
func TestEvictAsTheAPIServer(t *testing.T) {
	unready := Candidate{Phase: corev1.PodRunning}
	cases := []struct {
		name    string
		pod     Candidate
		budgets []*Gate
		code    int
		counted bool
		cause   string
	}{
		{"no budget: evicted", running, nil, Evicted, false, ""},
		{"allowed 1: evicted and counted", running, []*Gate{gate("b", 1, 4, 3)}, Evicted, true, ""},
		{"allowed 0 (the lab): 429", running, []*Gate{gate("trainer-pdb", 0, 4, 4)}, TooManyRequests, false,
			"The disruption budget trainer-pdb needs 4 healthy pods and has 4 currently"},
		{"two budgets: 500, whatever they allow", running, []*Gate{gate("a", 3, 4, 1), gate("b", 3, 4, 1)}, ServerError, false, ""},
		{"Pending skips budgets, even two", Candidate{Phase: corev1.PodPending}, []*Gate{gate("a", 0, 4, 4), gate("b", 0, 4, 4)}, Evicted, false, ""},
		{"Succeeded skips budgets", Candidate{Phase: corev1.PodSucceeded}, []*Gate{gate("a", 0, 4, 4)}, Evicted, false, ""},
		{"Failed skips budgets", Candidate{Phase: corev1.PodFailed}, []*Gate{gate("a", 0, 4, 4)}, Evicted, false, ""},
		{"deleting skips budgets", Candidate{Phase: corev1.PodRunning, Ready: true, Deleting: true}, []*Gate{gate("a", 0, 4, 4)}, Evicted, false, ""},
		{"unready, healthy budget: evicted, not counted", unready, []*Gate{gate("b", 0, 3, 3)}, Evicted, false, ""},
		{"unready, unhealthy budget: 429", unready, []*Gate{gate("b", 0, 2, 3)}, TooManyRequests, false,
			"The disruption budget b needs 3 healthy pods and has 2 currently"},
		{"unready, desired 0: falls through to the check", unready, []*Gate{gate("b", 0, 0, 0)}, TooManyRequests, false,
			"The disruption budget b needs 0 healthy pods and has 0 currently"},
		{"unready, AlwaysAllow: evicted, not counted", unready, []*Gate{func() *Gate {
			g := gate("b", 0, 2, 3)
			g.UnhealthyPodEvictionPolicy = policy(policyv1.AlwaysAllow)
			return g
		}()}, Evicted, false, ""},
		{"unready, IfHealthyBudget, unhealthy: 429", unready, []*Gate{func() *Gate {
			g := gate("b", 0, 2, 3)
			g.UnhealthyPodEvictionPolicy = policy(policyv1.IfHealthyBudget)
			return g
		}()}, TooManyRequests, false, "The disruption budget b needs 3 healthy pods and has 2 currently"},
		{"status behind its generation: 429, still being processed", running, []*Gate{func() *Gate {
			g := gate("b", 5, 9, 1)
			g.Generation = 2
			return g
		}()}, TooManyRequests, false, "The disruption budget b is still being processed by the server."},
		{"negative allowed: 403", running, []*Gate{gate("b", -1, 1, 2)}, Forbidden, false,
			"The disruption budget b does not allow evicting pods currently: pdb disruptions allowed is negative"},
		{"failed sync: 429 naming the failure", running, []*Gate{func() *Gate {
			g := gate("b", 0, 2, 0)
			g.SyncErr = `found no controllers for pod "x"`
			return g
		}()}, TooManyRequests, false, `The disruption budget b does not allow evicting pods currently because it failed sync: found no controllers for pod "x"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := make([]int32, len(c.budgets))
			for i, b := range c.budgets {
				before[i] = b.Allowed
			}
			o := Evict(c.pod, c.budgets)
			if o.Code != c.code || o.Counted != c.counted || o.Cause != c.cause {
				t.Fatalf("got %d counted=%v cause %q, want %d counted=%v cause %q", o.Code, o.Counted, o.Cause, c.code, c.counted, c.cause)
			}
			for i, b := range c.budgets {
				if want := before[i] - map[bool]int32{true: 1}[c.counted]; b.Allowed != want {
					t.Fatalf("budget %s allowed %d after, want %d", b.Name, b.Allowed, want)
				}
			}
		})
	}
}

// One drain uses a budget up pod by pod: with 2 allowed, the third pod of
// the same budget is refused.
func TestEvictUsesTheBudgetUpPodByPod(t *testing.T) {
	b := gate("b", 2, 5, 3)
	var codes []int
	for range 3 {
		codes = append(codes, Evict(running, []*Gate{b}).Code)
	}
	if want := []int{Evicted, Evicted, TooManyRequests}; codes[0] != want[0] || codes[1] != want[1] || codes[2] != want[2] {
		t.Fatalf("codes %v, want %v", codes, want)
	}
}

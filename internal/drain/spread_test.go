package drain

import (
	"fmt"
	"strings"
	"testing"
)

// spreadOn is a topologySpreadConstraints block for app: web on key.
func spreadOn(key string, maxSkew int, extra string) string {
	return fmt.Sprintf(`      topologySpreadConstraints:
      - maxSkew: %d
        topologyKey: %s
        whenUnsatisfiable: DoNotSchedule
        labelSelector: {matchLabels: {app: web}}%s`, maxSkew, key, extra)
}

func zoned(zones ...string) string {
	var docs []string
	for i, z := range zones {
		docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata: {name: n%d, labels: {kubernetes.io/hostname: n%d, topology.kubernetes.io/zone: %s}}", i, i, z))
	}
	return strings.Join(docs, "\n---\n")
}

// The expected placements below follow the API's description of each
// field (k8s.io/api core/v1 TopologySpreadConstraint), worked by hand.

// One pod per node, maxSkew 1 by hostname: the pod evicted from a cordoned
// node cannot land on another (2 there against 0 on the cordoned node,
// which stays a domain under the default nodeTaintsPolicy Ignore). It
// waits for the uncordon, and lands back there.
func TestSpreadKeepsAReplacementPendingUntilUncordon(t *testing.T) {
	m := yamlModel(t, nodes(3), deployment("web", 3, "app: web", spreadOn("kubernetes.io/hostname", 1, "")))
	for i := range 3 {
		if got := names(m.PodsOn(fmt.Sprintf("n%d", i))); got != fmt.Sprintf("default/web-%d", i) {
			t.Fatalf("n%d holds %q, want one replica each", i, got)
		}
	}
	s := m.NewSim(Flags{})
	res := s.Drain("n0")
	if len(res.Evicted) != 1 || res.Evicted[0].To != "" || !strings.Contains(res.Evicted[0].Why, "2 "+ReasonSpread) {
		t.Fatalf("drain %+v, want the replacement Pending on the spread", res.Evicted)
	}
	back := s.Uncordon("n0")
	if len(back) != 1 || back[0].To != "n0" {
		t.Fatalf("uncordon: %+v, want it back on n0", back)
	}
}

// With nodeTaintsPolicy Honor the cordoned node is no domain: the least
// count is 1, and the replacement may go where 2 makes a skew of 1.
func TestSpreadHonoringTaintsLeavesTheCordonedNodeOut(t *testing.T) {
	m := yamlModel(t, nodes(3), deployment("web", 3, "app: web", spreadOn("kubernetes.io/hostname", 1, "\n        nodeTaintsPolicy: Honor")))
	res := m.NewSim(Flags{}).Drain("n0")
	if len(res.Evicted) != 1 || res.Evicted[0].To != "n1" {
		t.Fatalf("drain %+v, want the replacement on n1", res.Evicted)
	}
}

// By zone, two zones, minDomains 3: the global minimum is 0, so with
// maxSkew 1 each zone takes one pod and the third replica stays Pending.
func TestSpreadMinDomains(t *testing.T) {
	m := yamlModel(t, zoned("a", "a", "b"), deployment("web", 3, "app: web", spreadOn("topology.kubernetes.io/zone", 1, "\n        minDomains: 3")))
	var on []string
	for _, p := range m.Pods {
		on = append(on, p.Node)
	}
	if got := strings.Join(on, " "); got != "n0 n2 " {
		t.Fatalf("placed on %q, want n0, n2 and one on no node", got)
	}
	// Without minDomains every replica lands, two in a and one in b (a
	// third in b would be a skew of 2).
	m = yamlModel(t, zoned("a", "a", "b"), deployment("web", 3, "app: web", spreadOn("topology.kubernetes.io/zone", 1, "")))
	zones := map[string]int{}
	for _, p := range m.Pods {
		zones[m.Node(p.Node).Labels["topology.kubernetes.io/zone"]]++
	}
	if zones["a"] != 2 || zones["b"] != 1 {
		t.Fatalf("zones %v, want a:2 b:1", zones)
	}
}

// A node without the topology key is rejected, with the scheduler's words.
func TestSpreadMissingKey(t *testing.T) {
	m := yamlModel(t, nodes(2), deployment("web", 1, "app: web", spreadOn("topology.kubernetes.io/zone", 1, "")))
	if len(m.Pods) != 1 || m.Pods[0].Node != "" || !strings.Contains(m.WhyUnplaced(m.Pods[0]), "2 "+ReasonSpreadLabel) {
		t.Fatalf("pods %+v, unplaced %v", m.Pods, m.Unplaced)
	}
}

// ScheduleAnyway only scores: it never keeps a pod off a node.
func TestSpreadScheduleAnywayDoesNotFilter(t *testing.T) {
	c := strings.Replace(spreadOn("kubernetes.io/hostname", 1, ""), "DoNotSchedule", "ScheduleAnyway", 1)
	m := yamlModel(t, nodes(1), deployment("web", 3, "app: web", c))
	if got := names(m.PodsOn("n0")); got != "default/web-0 default/web-1 default/web-2" {
		t.Fatalf("n0 holds %q", got)
	}
}

package placement

import (
	"fmt"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/drain/draintest"
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
	m := yamlModel(t, draintest.Nodes(3), draintest.Deployment("web", 3, "app: web", spreadOn("kubernetes.io/hostname", 1, "")))
	for i := range 3 {
		if got := names(m.PodsOn(fmt.Sprintf("n%d", i))); got != fmt.Sprintf("default/web-%d", i) {
			t.Fatalf("n%d holds %q, want one replica each", i, got)
		}
	}
	s := m.NewSim(drain.Flags{})
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
	m := yamlModel(t, draintest.Nodes(3), draintest.Deployment("web", 3, "app: web", spreadOn("kubernetes.io/hostname", 1, "\n        nodeTaintsPolicy: Honor")))
	res := m.NewSim(drain.Flags{}).Drain("n0")
	if len(res.Evicted) != 1 || res.Evicted[0].To != "n1" {
		t.Fatalf("drain %+v, want the replacement on n1", res.Evicted)
	}
}

// By zone, two zones, minDomains 3: the global minimum is 0, so with
// maxSkew 1 each zone takes one pod and the third replica stays Pending.
func TestSpreadMinDomains(t *testing.T) {
	m := yamlModel(t, zoned("a", "a", "b"), draintest.Deployment("web", 3, "app: web", spreadOn("topology.kubernetes.io/zone", 1, "\n        minDomains: 3")))
	var on []string
	for _, p := range m.Pods {
		on = append(on, p.Node)
	}
	if got := strings.Join(on, " "); got != "n0 n2 " {
		t.Fatalf("placed on %q, want n0, n2 and one on no node", got)
	}
	// Without minDomains every replica lands, two in a and one in b (a
	// third in b would be a skew of 2).
	m = yamlModel(t, zoned("a", "a", "b"), draintest.Deployment("web", 3, "app: web", spreadOn("topology.kubernetes.io/zone", 1, "")))
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
	m := yamlModel(t, draintest.Nodes(2), draintest.Deployment("web", 1, "app: web", spreadOn("topology.kubernetes.io/zone", 1, "")))
	if len(m.Pods) != 1 || m.Pods[0].Node != "" || !strings.Contains(m.WhyUnplaced(m.Pods[0]), "2 "+ReasonSpreadLabel) {
		t.Fatalf("pods %+v, unplaced %v", m.Pods, m.Unplaced)
	}
}

// ScheduleAnyway only scores: it never keeps a pod off a node.
func TestSpreadScheduleAnywayDoesNotFilter(t *testing.T) {
	c := strings.Replace(spreadOn("kubernetes.io/hostname", 1, ""), "DoNotSchedule", "ScheduleAnyway", 1)
	m := yamlModel(t, draintest.Nodes(1), draintest.Deployment("web", 3, "app: web", c))
	if got := names(m.PodsOn("n0")); got != "default/web-0 default/web-1 default/web-2" {
		t.Fatalf("n0 holds %q", got)
	}
}

// A replacement with spread constraints shares its search key with one
// without (the key leaves the constraints out), yet an uncordon must test
// its skew: api-0 lands back on n0, web-2 may not (zone a would hold two
// web pods to zone b's none), though n0 has room for both.
func TestUncordonTestsTheSpreadOfEveryPod(t *testing.T) {
	node := func(name, zone string, pods int) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata: {name: %s, labels: {kubernetes.io/hostname: %s, topology.kubernetes.io/zone: %s}}\nstatus: {allocatable: {pods: %q}}", name, name, zone, fmt.Sprint(pods))
	}
	m := yamlModel(t, node("n0", "a", 2), node("n1", "a", 1), node("n2", "b", 1),
		draintest.Deployment("api", 1, "app: api", ""), draintest.Deployment("web", 3, "app: web", spreadOn("topology.kubernetes.io/zone", 1, "")))
	var on []string
	for _, n := range []string{"n0", "n1", "n2"} {
		on = append(on, n+": "+names(m.PodsOn(n)))
	}
	if got, want := strings.Join(on, "; "), "n0: default/api-0 default/web-2; n1: default/web-0; n2: default/web-1"; got != want {
		t.Fatalf("placed %s, want %s", got, want)
	}
	s := m.NewSim(drain.Flags{})
	for _, n := range []string{"n0", "n2"} {
		for _, e := range s.Drain(n).Evicted {
			if e.To != "" {
				t.Fatalf("draining %s: %s lands on %s, want every replacement Pending", n, e.Pod.Key(), e.To)
			}
		}
	}
	var back []string
	for _, e := range s.Uncordon("n0") {
		back = append(back, e.Pod.Key()+"@"+e.To)
	}
	if got := strings.Join(back, " "); got != "default/api-0@n0" {
		t.Fatalf("after the uncordon %q landed, want default/api-0@n0 alone", got)
	}
}

// A replica that fitted nowhere for its spread constraints keeps the
// reason worded then: a pod landing later (b-0, which the constraint
// counts) can raise the least count, so that at the end a-3 would fit.
func TestUnplacedSpreadKeepsItsReason(t *testing.T) {
	node := func(name, zone string, gpus int) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata: {name: %s, labels: {topology.kubernetes.io/zone: %s}}\nstatus: {allocatable: {pods: \"110\", nvidia.com/gpu: %q}}", name, zone, fmt.Sprint(gpus))
	}
	workload := func(name string, replicas int, extra string) string {
		return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: %s}
spec:
  replicas: %d
  selector: {matchLabels: {app: %s}}
  template:
    metadata: {labels: {app: %s, team: t}}
    spec:
%s`, name, replicas, name, name, extra)
	}
	gpu := `      containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {team: t}}}`
	m := yamlModel(t, node("node-a", "a", 1), node("node-b", "b", 4), workload("a", 4, gpu), workload("b", 1, "      containers: [{name: c, image: x}]"))
	var unplaced []*drain.Pod
	for p := range m.Unplaced {
		unplaced = append(unplaced, p)
	}
	if len(unplaced) != 1 || unplaced[0].Key() != "default/a-3" {
		t.Fatalf("unplaced %s, want default/a-3", names(unplaced))
	}
	if got := names(m.PodsOn("node-a")); got != "default/a-0 default/b-0" {
		t.Fatalf("node-a holds %q", got)
	}
	if why := m.WhyUnplaced(unplaced[0]); !strings.Contains(why, "1 "+ReasonSpread) {
		t.Fatalf("a-3 unplaced because %q, want the spread constraint as it failed", why)
	}
}

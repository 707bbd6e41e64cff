package placement

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/drain/draintest"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/load"
	"github.com/drvcheck/drvcheck/internal/object"
)

// labDir is testdata/lab of the repository.
func labDir(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "lab")
}

func labModel(t *testing.T, extra string) *Model {
	t.Helper()
	objs, err := load.Load(context.Background(), []string{labDir(t)}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if extra != "" {
		more, err := load.Parse(&load.Source{Name: "extra.yaml"}, []byte(extra))
		if err != nil {
			t.Fatal(err)
		}
		objs = replace(objs, more)
	}
	return modelOf(t, objs)
}

// replace swaps objects of objs for those of more with the same ref.
func replace(objs, more []*load.Object) []*load.Object {
	byRef := map[object.Ref]*load.Object{}
	for _, o := range more {
		byRef[o.Ref()] = o
	}
	var out []*load.Object
	for _, o := range objs {
		if _, ok := byRef[o.Ref()]; !ok {
			out = append(out, o)
		}
	}
	return append(out, more...)
}

func modelOf(t *testing.T, objs []*load.Object) *Model {
	t.Helper()
	inv, err := inventory.FromObjects(objs, false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(inv)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func yamlModel(t *testing.T, docs ...string) *Model {
	t.Helper()
	objs, err := load.Parse(&load.Source{Name: "test.yaml"}, []byte(strings.Join(docs, "\n---\n")))
	if err != nil {
		t.Fatal(err)
	}
	return modelOf(t, objs)
}

func names(ps []*drain.Pod) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Key())
	}
	return strings.Join(out, " ")
}

func budget(m *Model, name string) *drain.Budget {
	for _, b := range m.Budgets {
		if b.Name() == name {
			return b
		}
	}
	return nil
}

func TestLabModel(t *testing.T) {
	m := labModel(t, "")
	for i := range 4 {
		node := fmt.Sprintf("lab-node-%d", i)
		want := fmt.Sprintf("gpu-drv/trainer-%d", i)
		if i == 0 {
			want = "gpu-drv/cuda12-job " + want // the only node with branch 550 and Ubuntu 22.04
		}
		if got := names(m.PodsOn(node)); got != want {
			t.Errorf("%s holds %q, want %q", node, got, want)
		}
	}
	var unplaced []string
	for p := range m.Unplaced {
		unplaced = append(unplaced, p.Key()+": "+m.WhyUnplaced(p))
	}
	if want := "gpu-drv/cuda13-job: 0/4 nodes are available: 4 node(s) didn't match Pod's node affinity/selector."; fmt.Sprint(unplaced) != "["+want+"]" {
		t.Errorf("unplaced %v, want [%s]", unplaced, want)
	}
	b := budget(m, "trainer-pdb")
	if c := b.Count; c.Expected != 4 || c.Desired != 4 || c.Healthy != 4 || c.Allowed != 0 || b.Status != drain.Computed {
		t.Fatalf("trainer-pdb %+v %s, want 4/4/4/0 computed", c, b.Status)
	}
	if got := drain.GenericChange(b).Text; got != "lower trainer-pdb minAvailable from 4 to 3" {
		t.Fatalf("generic change %q", got)
	}
}

func TestLabNode1IsBlockedUntilMinAvailable3(t *testing.T) {
	room := labModel(t, "").NewSim(drain.Flags{}).Room("lab-node-1")
	if len(room.Refusals) != 1 || len(room.Overlaps) != 0 {
		t.Fatalf("refusals %+v overlaps %+v, want trainer-pdb alone", room.Refusals, room.Overlaps)
	}
	r := room.Refusals[0]
	if r.Budget.Name() != "trainer-pdb" || names(r.Pods) != "gpu-drv/trainer-1" || r.Last.Code != drain.TooManyRequests {
		t.Fatalf("refusal %s of %s code %d", r.Budget.Name(), names(r.Pods), r.Last.Code)
	}
	if r.Change.Text != "lower trainer-pdb minAvailable from 4 to 3" || fmt.Sprint(r.Change.Field) != "[spec minAvailable]" {
		t.Fatalf("change %+v", r.Change)
	}
	if r.Last.Cause != "The disruption budget trainer-pdb needs 4 healthy pods and has 4 currently" {
		t.Fatalf("cause %q", r.Last.Cause)
	}

	fixed := labModel(t, draintest.PDB("trainer-pdb", "gpu-drv", "minAvailable: 3", "app: trainer"))
	sim := fixed.NewSim(drain.Flags{})
	res := sim.Drain("lab-node-1")
	if !res.Done() || len(res.Evicted) != 1 {
		t.Fatalf("drain with minAvailable 3: %+v", res)
	}
	e := res.Evicted[0]
	// The replacement cannot land: the other three nodes hold a trainer
	// and lab-node-1 is cordoned.
	if e.To != "" || e.Why != "0/4 nodes are available: 1 node(s) were unschedulable, 3 node(s) didn't match pod anti-affinity rules." {
		t.Fatalf("replacement to %q why %q", e.To, e.Why)
	}
	if c := sim.Count(budget(fixed, "trainer-pdb")); c.Healthy != 3 || c.Allowed != 0 {
		t.Fatalf("after the drain %+v, want 3 healthy, 0 allowed", c)
	}
	if landed := sim.Uncordon("lab-node-1"); len(landed) != 1 || landed[0].To != "lab-node-1" {
		t.Fatalf("after uncordon %+v, want the trainer back on lab-node-1", landed)
	}
	if c := sim.Count(budget(fixed, "trainer-pdb")); c.Healthy != 4 || c.Allowed != 1 {
		t.Fatalf("after uncordon %+v, want 4 healthy, 1 allowed", c)
	}
}

// With a spare node, the evicted replica lands elsewhere and the budget
// recovers, so one allowed disruption drains a node holding two of its pods
// one after the other (kubectl retries the 429 until then).
func TestBudgetRecoversWhenReplacementsLand(t *testing.T) {
	m := yamlModel(t, draintest.Nodes(3), draintest.Deployment("web", 4, "app: web", ""), draintest.PDB("web-pdb", "default", "maxUnavailable: 1", "app: web"))
	if got := names(m.PodsOn("n0")); got != "default/web-0 default/web-3" {
		t.Fatalf("n0 holds %q", got)
	}
	res := m.NewSim(drain.Flags{}).Drain("n0")
	if !res.Done() || len(res.Evicted) != 2 || res.Evicted[0].To == "" || res.Evicted[1].To == "" {
		t.Fatalf("drain %+v, want both evicted and landed", res)
	}
}

// Under hostname anti-affinity with no spare node, each eviction loses a
// healthy pod for good: two pods of the budget on the node need two.
func TestUnreplaceablePodsNeedOneDisruptionEach(t *testing.T) {
	anti := func(app string) string { return strings.ReplaceAll(draintest.HostnameAnti, "app: web", "app: "+app) }
	m := yamlModel(t, draintest.Nodes(2),
		draintest.Deployment("a", 2, "app: a, team: x", anti("a")), draintest.Deployment("b", 2, "app: b, team: x", anti("b")),
		draintest.PDB("team", "default", "minAvailable: 4", "team: x"),
		`apiVersion: v1
kind: Pod
metadata: {name: extra}
spec:
  nodeName: n0
  containers: [{name: c, image: x}]`)
	if got := names(m.PodsOn("n0")); got != "default/a-0 default/b-0 default/extra" {
		t.Fatalf("n0 holds %q", got)
	}
	room := m.NewSim(drain.Flags{}).Room("n0")
	if len(room.Refusals) != 1 {
		t.Fatalf("refusals %+v", room.Refusals)
	}
	if got := room.Refusals[0].Change.Text; got != "lower team minAvailable from 4 to 2" {
		t.Fatalf("change %q", got)
	}
	if names(room.Drain.NeedsForce) != "default/extra" {
		t.Fatalf("needs force %q", names(room.Drain.NeedsForce))
	}
}

func TestOverlappingBudgetsAre500(t *testing.T) {
	m := yamlModel(t, draintest.Nodes(3), draintest.Deployment("web", 3, "app: web, tier: a", ""),
		draintest.PDB("by-app", "default", "minAvailable: 1", "app: web"), draintest.PDB("by-tier", "default", "maxUnavailable: 1", "tier: a"))
	for _, b := range m.Budgets {
		// Each budget is computed on its own, and each would allow.
		if b.Count.Allowed == 0 || len(b.Overlapping()) != 3 {
			t.Fatalf("%s: %+v overlapping %d", b.Name(), b.Count, len(b.Overlapping()))
		}
	}
	room := m.NewSim(drain.Flags{}).Room("n0")
	if len(room.Overlaps) != 1 || room.Drain.Blocked[0].Outcome.Code != drain.ServerError || len(room.Refusals) != 0 {
		t.Fatalf("room %+v", room)
	}
}

func TestFiltersRefuseWithoutFlags(t *testing.T) {
	m := yamlModel(t, draintest.Nodes(1), `apiVersion: v1
kind: Pod
metadata: {name: scratch}
spec:
  containers: [{name: c, image: x}]
  volumes: [{name: tmp, emptyDir: {}}]`, draintest.Deployment("web", 1, "app: web", ""))
	res := m.NewSim(drain.Flags{}).Drain("n0")
	if names(res.Refused) != "default/scratch" || len(res.Evicted) != 0 {
		t.Fatalf("without flags: refused %q evicted %d (kubectl evicts nothing)", names(res.Refused), len(res.Evicted))
	}
	if names(res.NeedsForce) != "default/scratch" || names(res.NeedsDeleteEmptyDir) != "default/scratch" {
		t.Fatalf("needs %q / %q", names(res.NeedsForce), names(res.NeedsDeleteEmptyDir))
	}
	res = m.NewSim(drain.Flags{Force: true, DeleteEmptyDir: true}).Drain("n0")
	if !res.Done() || len(res.Evicted) != 2 || !res.Evicted[1].Gone && !res.Evicted[0].Gone {
		t.Fatalf("with flags: %+v", res)
	}
}

// A node cordoned in the files (mid-upgrade) still runs its pods; only
// replacements avoid it.
func TestCordonedNodeKeepsItsPods(t *testing.T) {
	cordoned := `apiVersion: v1
kind: Node
metadata: {name: n0, labels: {kubernetes.io/hostname: n0}}
spec:
  unschedulable: true
  taints: [{key: node.kubernetes.io/unschedulable, effect: NoSchedule}]
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}`
	m := yamlModel(t, cordoned, draintest.Deployment("web", 2, "app: web", draintest.HostnameAnti), draintest.PDB("web-pdb", "default", "minAvailable: 1", "app: web"))
	if got := names(m.PodsOn("n0")); got != "default/web-0" {
		t.Fatalf("n0 holds %q, want web-0", got)
	}
	res := m.NewSim(drain.Flags{}).Drain("n0")
	if !res.Done() || res.Evicted[0].To != "" || !strings.Contains(res.Evicted[0].Why, "1 node(s) were unschedulable") {
		t.Fatalf("drain %+v", res)
	}
}

// Fits is a shortcut for Room: it must never say yes where Room refuses.
func TestFitsAgreesWithRoom(t *testing.T) {
	for _, m := range []*Model{
		labModel(t, ""),
		labModel(t, draintest.PDB("trainer-pdb", "gpu-drv", "minAvailable: 3", "app: trainer")),
		yamlModel(t, draintest.Nodes(3), draintest.Deployment("web", 3, "app: web, tier: a", ""),
			draintest.PDB("by-app", "default", "minAvailable: 1", "app: web"), draintest.PDB("by-tier", "default", "maxUnavailable: 1", "tier: a")),
	} {
		for _, n := range m.Nodes {
			room := m.NewSim(drain.Flags{}).Room(n.Name)
			if m.Fits(n.Name) && len(room.Refusals)+len(room.Overlaps) > 0 {
				t.Errorf("%s: Fits, but Room refuses: %+v", n.Name, room)
			}
		}
	}
	if !labModel(t, draintest.PDB("trainer-pdb", "gpu-drv", "minAvailable: 3", "app: trainer")).Fits("lab-node-1") {
		t.Error("minAvailable 3 of 4: lab-node-1 should fit")
	}
	if labModel(t, "").Fits("lab-node-1") {
		t.Error("minAvailable 4 of 4: lab-node-1 should not fit")
	}
}

package placement

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/drain/draintest"
	"github.com/drvcheck/drvcheck/internal/fleetgen"
	"github.com/drvcheck/drvcheck/internal/load"
)

// shapeModel is the drain model of a fleetgen shape at 1/scale of its size.
func shapeModel(t *testing.T, shape fleetgen.Spec, scale int) *Model {
	t.Helper()
	dir := t.TempDir()
	if _, err := fleetgen.Write(dir, shape.Scaled(scale)); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "k8s", "*.yaml"))
	var objs []*load.Object
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		o, err := load.Parse(&load.Source{Name: f}, data)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, o...)
	}
	return modelOf(t, objs)
}

// story is everything a drain says, in words: where each replacement went
// or why it found no node, what blocked, and each refusal's change.
func story(r Room) string {
	var b strings.Builder
	for _, e := range r.Drain.Evicted {
		fmt.Fprintf(&b, "%s->%s(%s) ", e.Pod.Key(), e.To, e.Why)
	}
	for _, bl := range r.Drain.Blocked {
		fmt.Fprintf(&b, "blocked %s %d ", bl.Pod.Key(), bl.Outcome.Code)
	}
	for _, f := range r.Refusals {
		fmt.Fprintf(&b, "refused %s: %s ", f.Budget.Name(), f.Change.Text)
	}
	return b.String()
}

// The shortcuts of a search, the index of nodes with room (roomy.go) and
// the failures remembered (noroom.go), only skip work: on every shape,
// every node's drain says the same with them as with every search run in
// full over every node, alone and one after another in one simulation (as
// plan --all drains), the reasons of Pending replacements included.
func TestSearchShortcutsChangeNothing(t *testing.T) {
	defer func() { remembers = true }()
	shapes := slices.Clone(fleetgen.Shapes)
	for i := range shapes {
		shapes[i] = shapes[i].Scaled(50)
	}
	// and small fleets of random shapes, where nodes fill and empty often
	rng := rand.New(rand.NewPCG(24, 1))
	for i := range 40 {
		shapes = append(shapes, randomShape(rng, fmt.Sprintf("random-%d", i)))
	}
	for _, shape := range shapes {
		t.Run(shape.Name, func(t *testing.T) {
			m := shapeModel(t, shape, 1)
			walk := func(index, remember bool) []string {
				m.whole, m.roomy, remembers = index, nil, remember
				var out []string
				for _, n := range m.Nodes {
					out = append(out, n.Name+": "+story(m.NewSim(drain.Flags{}).Room(n.Name)))
				}
				uncordon := func(s *Sim, n string) {
					for _, e := range s.Uncordon(n) {
						out = append(out, fmt.Sprintf("%s uncordoned: %s->%s", n, e.Pod.Key(), e.To))
					}
				}
				// Windows of five nodes, drained in turn and then uncordoned.
				long := m.NewSim(drain.Flags{})
				for i := 0; i < len(m.Nodes); i += 5 {
					window := m.Nodes[i:min(i+5, len(m.Nodes))]
					for _, n := range window {
						out = append(out, n.Name+" in turn: "+story(Room{Drain: long.Drain(n.Name)}))
					}
					for _, n := range window {
						uncordon(long, n.Name)
					}
				}
				// A rolling window, as a rollout's retried nodes go: each
				// node drained, then the one drained lag nodes before it
				// uncordoned.
				rolling, lag := m.NewSim(drain.Flags{}), 1+len(m.Nodes)%4
				for i, n := range m.Nodes {
					out = append(out, n.Name+" rolling: "+story(Room{Drain: rolling.Drain(n.Name)}))
					if i >= lag {
						uncordon(rolling, m.Nodes[i-lag].Name)
					}
				}
				for _, n := range m.Nodes[max(0, len(m.Nodes)-lag):] {
					uncordon(rolling, n.Name)
				}
				// Drains and uncordons in a random order.
				random, rng := m.NewSim(drain.Flags{}), rand.New(rand.NewPCG(uint64(len(m.Nodes)), 40))
				for range 3 * len(m.Nodes) {
					n := m.Nodes[rng.IntN(len(m.Nodes))].Name
					if random.Cordoned(n) {
						uncordon(random, n)
					} else {
						out = append(out, n+" at random: "+story(Room{Drain: random.Drain(n)}))
					}
				}
				return out
			}
			full := walk(false, false)
			for _, mode := range []struct{ index, remember bool }{{true, true}, {false, true}, {true, false}} {
				got := walk(mode.index, mode.remember)
				for i := range full {
					if got[i] != full[i] {
						t.Fatalf("index %v, remembered failures %v:\n%s\nevery search in full:\n%s", mode.index, mode.remember, got[i], full[i])
					}
				}
			}
		})
	}
}

// randomShape is a small fleet whose every knob is drawn from rng.
func randomShape(rng *rand.Rand, name string) fleetgen.Spec {
	pick := func(xs ...int) int { return xs[rng.IntN(len(xs))] }
	pins := slices.Concat(fleetgen.Target.Pins, fleetgen.Capacity.Pins, fleetgen.Packed.Pins)
	rng.Shuffle(len(pins), func(i, j int) { pins[i], pins[j] = pins[j], pins[i] })
	return fleetgen.Spec{
		Name: name, Nodes: 3 + rng.IntN(30), Workloads: 2 + rng.IntN(60), PDBs: rng.IntN(30), PerFile: 7,
		Resources:        []string{"", "capacity", "allocatable"}[rng.IntN(3)],
		NewKernelPer1000: pick(0, 100), TaintEvery: pick(0, 2, 5),
		Mixed: rng.IntN(2) == 0, MaxReplicas: 1 + rng.IntN(12), Pins: pins[:1+rng.IntN(len(pins))],
		AntiAffinityEvery: pick(0, 1, 3), SpreadEvery: pick(0, 1, 2, 3), Namespaces: 1 + rng.IntN(4),
		GPUs: [][]int{nil, {1, 2}, {4, 1, 8, 2}}[rng.IntN(3)], TolerateCordonEvery: pick(0, 0, 3),
		Budgets: []string{"each", "spread"}[rng.IntN(2)], BlockEvery: pick(0, 2, 5),
	}
}

// A pod that ran on a node cordoned in the files, the one node its
// affinity allows, has nowhere to go: its drain leaves it Pending, with
// the scheduler's reason.
func TestDrainWithNoEligibleNode(t *testing.T) {
	m := yamlModel(t, `apiVersion: v1
kind: Node
metadata: {name: only, labels: {pool: gpu}}
spec: {unschedulable: true}`, draintest.Deployment("web", 1, "app: web", `      nodeSelector: {pool: gpu}`))
	r := m.NewSim(drain.Flags{}).Room("only")
	if len(r.Drain.Evicted) != 1 || r.Drain.Evicted[0].To != "" || !strings.HasPrefix(r.Drain.Evicted[0].Why, "0/1 nodes are available") {
		t.Fatalf("drain %+v", r.Drain)
	}
}

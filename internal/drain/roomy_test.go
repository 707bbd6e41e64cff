package drain

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

// The index of nodes with room (roomy.go) only skips nodes a search would
// have passed over: on every shape, every node's drain says the same with
// it as with a walk of every node, alone and one after another in one
// simulation (as plan --all drains), reasons included.
func TestRoomIndexChangesNothing(t *testing.T) {
	for _, shape := range fleetgen.Shapes {
		t.Run(shape.Name, func(t *testing.T) {
			m := shapeModel(t, shape, 50)
			walk := func(whole bool) []string {
				m.whole, m.roomy = whole, nil
				var out []string
				long := m.NewSim(Flags{})
				for _, n := range m.Nodes {
					out = append(out, n.Name+": "+story(m.NewSim(Flags{}).Room(n.Name)))
					res := long.Drain(n.Name)
					out = append(out, n.Name+" in turn: "+story(Room{Drain: res}))
					long.Uncordon(n.Name)
				}
				return out
			}
			indexed, walked := walk(true), walk(false)
			for i := range walked {
				if indexed[i] != walked[i] {
					t.Fatalf("with the index:\n%s\nwalking every node:\n%s", indexed[i], walked[i])
				}
			}
			if len(m.roomy) != 0 {
				t.Fatal("the index was used while disabled")
			}
		})
	}
}

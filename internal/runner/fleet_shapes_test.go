package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/config"
	"github.com/drvcheck/drvcheck/internal/fleetgen"
)

// recordedFindings is testdata/fleet-findings.json: the findings per rule
// of every fleetgen shape, counted before the speed work, by scale.
func recordedFindings(t testing.TB, scale int, shape string) map[string]int {
	t.Helper()
	data, err := os.ReadFile("testdata/fleet-findings.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Scale map[string]map[string]map[string]int
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	want, ok := rec.Scale[strconv.Itoa(scale)][shape]
	if !ok {
		t.Fatalf("testdata/fleet-findings.json has no counts for %s at 1/%d", shape, scale)
	}
	return want
}

// findingsByRule counts a run's findings per rule.
func findingsByRule(res *Result) map[string]int {
	out := map[string]int{}
	for _, f := range res.Findings {
		out[f.Rule]++
	}
	return out
}

// Speed work must not change what drvcheck finds: every shape make bench
// measures, at a tenth of its size, gives the findings it gave before.
// (make bench holds the full size to the same counts.)
func TestFleetShapesFindings(t *testing.T) {
	for _, shape := range fleetgen.Shapes {
		t.Run(shape.Name, func(t *testing.T) {
			if got, want := shapeFindings(t, shape.Scaled(10)), recordedFindings(t, 10, shape.Name); !maps.Equal(got, want) {
				t.Errorf("findings per rule %v, before the speed work %v", got, want)
			}
		})
	}
}

// TestFleetShapesFindingsScale: the generator at three times a size gives
// three times the findings of every rule (the cost that grows with the
// fleet must be the same work, scaled), at a tenth of the target size
// here and at full size under make bench.
func TestFleetShapesFindingsScale(t *testing.T) {
	for _, shape := range fleetgen.Shapes {
		t.Run(shape.Name, func(t *testing.T) {
			small := shape.Scaled(10)
			base, large := shapeFindings(t, small), shapeFindings(t, small.Times(3))
			if why := scaledFindings(base, large, 3); why != "" {
				t.Error(why)
			}
		})
	}
}

func shapeFindings(t *testing.T, shape fleetgen.Spec) map[string]int {
	t.Helper()
	dir := t.TempDir()
	matrix, err := fleetgen.Write(dir, shape)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Paths: []string{filepath.Join(dir, "k8s")}, Registry: config.Registry{Matrix: []string{matrix}}}
	res, err := Check(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return findingsByRule(res)
}

// scaledFindings says how got, the findings per rule of a fleet k times
// the size of base's, differs from k times base's; "" when it does not.
// A problem the generator puts on every b-th object counts ceil(n/b) of
// n, so k times the objects may count up to k-1 fewer than k times the
// count (500 blocking budgets of 1,500 where 500 had 167): that much is
// allowed, and no more.
func scaledFindings(base, got map[string]int, k int) string {
	rules := slices.Sorted(maps.Keys(base))
	for r := range got {
		if _, ok := base[r]; !ok {
			rules = append(rules, r)
		}
	}
	var bad []string
	for _, r := range rules {
		want := k * base[r]
		if d := want - got[r]; d < 0 || d > k-1 {
			bad = append(bad, fmt.Sprintf("%s %d, want %d (%d times %d)", r, got[r], want, k, base[r]))
		}
	}
	if len(bad) == 0 {
		return ""
	}
	return "findings per rule not scaled with the fleet: " + strings.Join(bad, ", ")
}

// The allowance per finding on capacity is measured against its fixed
// twin (fleetgen.CapacityFixed), which must find nothing at all: what
// check costs on capacity beyond it is then its findings' cost only.
func TestCapacityFixedFindsNothing(t *testing.T) {
	if got := shapeFindings(t, fleetgen.CapacityFixed.Scaled(10)); len(got) != 0 {
		t.Errorf("capacity's fixed twin finds %v, want nothing", got)
	}
}

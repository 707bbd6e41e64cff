package runner

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strconv"
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
			dir := t.TempDir()
			matrix, err := fleetgen.Write(dir, shape.Scaled(10))
			if err != nil {
				t.Fatal(err)
			}
			cfg := Config{Paths: []string{filepath.Join(dir, "k8s")}, Registry: config.Registry{Matrix: []string{matrix}}}
			res, err := Check(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := findingsByRule(res), recordedFindings(t, 10, shape.Name); !maps.Equal(got, want) {
				t.Errorf("findings per rule %v, before the speed work %v", got, want)
			}
		})
	}
}

package runner

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/drvcheck/drvcheck/internal/config"
	"github.com/drvcheck/drvcheck/internal/fleetgen"
	"github.com/drvcheck/drvcheck/internal/input"
	"github.com/drvcheck/drvcheck/internal/placement"
	"github.com/drvcheck/drvcheck/policy"
)

// TestFleetLeastCheck measures, on every shape, the three steps no check
// of this design can skip: reading the files with each field's line (the
// 60 ms of compiling the rules counted with it), converting the input
// document to OPA's values, and evaluating the rules. The rest of check
// (the facts, the placement of pods, the drain sections, the output) is
// left out, and each step is timed alone after a collection, under the
// binary's GC settings but not its huge pages (which mark the heap as a
// process starts): a floor under what speed work on the rest can reach.
// It logs their sum as a ratio to the decode floor, measured as
// TestFleetBudget does but under the same GC settings, for
// docs/performance.md; it fails when a step fails or the rules do not
// find what check finds. Under make bench (DRVCHECK_FLEET_BUDGET=1).
func TestFleetLeastCheck(t *testing.T) {
	if os.Getenv("DRVCHECK_FLEET_BUDGET") == "" {
		t.Skip("set DRVCHECK_FLEET_BUDGET=1 (make bench) to measure the speed budget")
	}
	for _, shape := range fleetgen.Shapes {
		t.Run(shape.Name, func(t *testing.T) { leastCheck(t, shape) })
	}
}

func leastCheck(t *testing.T, shape fleetgen.Spec) {
	ctx := context.Background()
	dir := t.TempDir()
	matrix, err := fleetgen.Write(dir, shape)
	if err != nil {
		t.Fatal(err)
	}
	// The floor too runs under the binary's GC settings: with the
	// default, it takes half as long again on a fresh heap.
	defer debug.SetGCPercent(debug.SetGCPercent(300))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(900 << 20))
	const runs = 3
	var floor, read, conv, eval []time.Duration
	for range runs {
		runtime.GC()
		floor = append(floor, timed(t, func() {
			if _, err := decodeOnly(dir); err != nil {
				t.Fatal(err)
			}
		}))
		r, c, e := checkSteps(ctx, t, dir, matrix, recordedFindings(t, 1, shape.Name))
		read, conv, eval = append(read, r), append(conv, c), append(eval, e)
	}
	least := median(read) + median(conv) + median(eval)
	r := func(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }
	t.Logf("%-9s decode %v; read %v + convert %v + evaluate %v = %v: %.2fx the decode floor",
		shape.Name, r(median(floor)), r(median(read)), r(median(conv)), r(median(eval)), r(least),
		float64(least)/float64(median(floor)))
}

// checkSteps times check's three unavoidable steps on the fleet in dir,
// each alone; the input document is built between them, untimed. The
// rules must find what check finds (want, per rule), so that what is
// timed is the whole evaluation.
func checkSteps(ctx context.Context, t *testing.T, dir, matrix string, want map[string]int) (read, conv, eval time.Duration) {
	cfg := Config{Paths: []string{filepath.Join(dir, "k8s")}, Registry: config.Registry{Matrix: []string{matrix}}}
	var o *opened
	runtime.GC()
	read = timed(t, func() {
		var err error
		if o, err = open(ctx, cfg, Files(ctx, cfg)); err != nil {
			t.Fatal(err)
		}
	})
	opt, err := options(ctx, o, "")
	if err != nil {
		t.Fatal(err)
	}
	m, err := placement.New(o.inv)
	if err != nil {
		t.Fatal(err)
	}
	doc := input.Build(o.inv, o.facts, o.cat, opt)
	maps.Copy(doc, input.DrainSections(o.facts, m, opt.Operator))
	var in *policy.Input
	runtime.GC()
	conv = timed(t, func() {
		if in, err = policy.NewInput(doc); err != nil {
			t.Fatal(err)
		}
	})
	var findings []policy.Finding
	runtime.GC()
	eval = timed(t, func() {
		if findings, err = o.engine.Eval(ctx, in); err != nil {
			t.Fatal(err)
		}
	})
	if got := findingsByRule(&Result{Findings: findings}); !maps.Equal(got, want) {
		t.Errorf("findings per rule %v, check's %v", got, want)
	}
	return read, conv, eval
}

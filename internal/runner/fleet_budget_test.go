package runner

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/drvcheck/drvcheck/internal/fleetgen"
)

// Budget from the project's standards: the target fleet checked from files
// in at most 1.5x the time to merely decode it, in at most 1 GiB; and its
// whole rollout simulated (plan --all) in at most 2x the time of check.
const (
	maxRatio     = 1.5
	maxRSS       = 1 << 30
	maxPlanRatio = 2.0
)

// TestFleetBudget runs the real binary on every shape of the target fleet
// (fleetgen.Shapes) and holds each to the budget against its own decode
// floor. Decode and check alternate, run by run, so that both meet the
// same machine; the ratio is of their medians, and the spread is printed.
// It takes minutes, so it runs under make bench (DRVCHECK_FLEET_BUDGET=1,
// DRVCHECK_BENCH_RUNS runs each, 5 by default), on an otherwise idle
// machine.
func TestFleetBudget(t *testing.T) {
	if os.Getenv("DRVCHECK_FLEET_BUDGET") == "" {
		t.Skip("set DRVCHECK_FLEET_BUDGET=1 (make bench) to measure the speed budget")
	}
	runs := 5
	if n, err := strconv.Atoi(os.Getenv("DRVCHECK_BENCH_RUNS")); err == nil && n > 0 {
		runs = n
	}
	bin := filepath.Join(t.TempDir(), "drvcheck")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/drvcheck")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	for _, shape := range fleetgen.Shapes {
		t.Run(shape.Name, func(t *testing.T) { shapeBudget(t, bin, shape, runs) })
	}
}

func shapeBudget(t *testing.T, bin string, shape fleetgen.Spec, runs int) {
	dir := t.TempDir()
	matrix, err := fleetgen.Write(dir, shape)
	if err != nil {
		t.Fatal(err)
	}
	k8s := filepath.Join(dir, "k8s")
	var decode, check, plan []time.Duration
	var rss, planRSS int64
	var out []byte
	for range runs {
		decode = append(decode, timed(t, func() {
			if _, err := decodeOnly(dir); err != nil {
				t.Fatal(err)
			}
		}))
		check = append(check, timed(t, func() {
			var r int64
			out, r = runBinary(t, 0, bin, "check", k8s, "--matrix", matrix, "-o", "json", "--fail-on", "none")
			rss = max(rss, r)
		}))
	}
	// Every node rolls, windows of a quarter of the fleet at once: the
	// heaviest rollout the flags can ask for.
	for range max(1, runs/2) {
		plan = append(plan, timed(t, func() {
			_, r := runBinary(t, 1, bin, "plan", "--all", "--driver", "580.90.07", "--max-parallel-upgrades", "0", "--max-unavailable", "25%",
				k8s, "--matrix", matrix, "-o", "json")
			planRSS = max(planRSS, r)
		}))
	}
	ratio := float64(median(check)) / float64(median(decode))
	planRatio := float64(median(plan)) / float64(median(check))
	r := func(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }
	t.Logf("%-9s decode %v (%v-%v), check %v (%v-%v): ratio %.2f (budget %.1f), peak RSS %d MiB; plan --all %v, %.2fx check (budget %.1f), peak RSS %d MiB",
		shape.Name, r(median(decode)), r(slices.Min(decode)), r(slices.Max(decode)), r(median(check)), r(slices.Min(check)), r(slices.Max(check)),
		ratio, maxRatio, rss>>20, r(median(plan)), planRatio, maxPlanRatio, planRSS>>20)
	if ratio > maxRatio {
		t.Errorf("check takes %.2fx the decode time, over the %.1fx budget", ratio, maxRatio)
	}
	if rss > maxRSS || planRSS > maxRSS {
		t.Errorf("peak RSS %d MiB (plan --all %d MiB), over the %d MiB budget", rss>>20, planRSS>>20, maxRSS>>20)
	}
	if planRatio > maxPlanRatio {
		t.Errorf("plan --all takes %.2fx the time of check, over the %.1fx budget", planRatio, maxPlanRatio)
	}
	var res struct{ Findings []struct{ Rule string } }
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("check -o json: %v", err)
	}
	got := map[string]int{}
	for _, f := range res.Findings {
		got[f.Rule]++
	}
	if want := recordedFindings(t, 1, shape.Name); !maps.Equal(got, want) {
		t.Errorf("findings per rule %v, before the speed work %v", got, want)
	}
}

// runBinary runs the binary, which must exit with code (plan --all exits 1 when
// nodes fail), and returns its standard output and peak RSS.
func runBinary(t *testing.T, code int, bin string, args ...string) ([]byte, int64) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if got := cmd.ProcessState.ExitCode(); got != code {
		t.Fatalf("%s: exit %d (%v)", args[0], got, err)
	}
	return out, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024
}

func timed(t *testing.T, f func()) time.Duration {
	t.Helper()
	start := time.Now()
	f()
	return time.Since(start)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

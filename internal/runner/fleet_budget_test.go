package runner

import (
	"os"
	"os/exec"
	"path/filepath"
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

// TestFleetBudget runs the real binary on the target fleet and holds it to
// the budget. It takes a minute, so it runs under make bench
// (DRVCHECK_FLEET_BUDGET=1), on an otherwise idle machine.
func TestFleetBudget(t *testing.T) {
	if os.Getenv("DRVCHECK_FLEET_BUDGET") == "" {
		t.Skip("set DRVCHECK_FLEET_BUDGET=1 (make bench) to measure the speed budget")
	}
	dir, matrix := fleet(t)
	bin := filepath.Join(t.TempDir(), "drvcheck")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/drvcheck")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	decode := best(t, 3, func() {
		if _, err := decodeOnly(dir); err != nil {
			t.Fatal(err)
		}
	})
	v3 := best(t, 3, func() {
		if _, err := decodeV3(dir); err != nil {
			t.Fatal(err)
		}
	})
	var rss, planRSS int64
	check := best(t, 3, func() {
		rss = max(rss, runBinary(t, 0, bin, "check", filepath.Join(dir, "k8s"), "--matrix", matrix, "-o", "json", "--fail-on", "none"))
	})
	// Every node rolls, windows of a quarter of the fleet at once, in name
	// order and in reverse: the heaviest rollout the flags can ask for.
	plan := best(t, 3, func() {
		planRSS = max(planRSS, runBinary(t, 1, bin, "plan", "--all", "--driver", "580.90.07", "--max-parallel-upgrades", "0", "--max-unavailable", "25%",
			filepath.Join(dir, "k8s"), "--matrix", matrix, "-o", "json"))
	})
	ratio := float64(check) / float64(decode)
	t.Logf("decode %v, check %v, ratio %.2f (budget %.1f), peak RSS %d MiB (budget %d MiB)",
		decode, check, ratio, maxRatio, rss>>20, maxRSS>>20)
	t.Logf("against go-yaml v3 decoding into plain values (%v): ratio %.2f", v3, float64(check)/float64(v3))
	if ratio > maxRatio {
		t.Errorf("check takes %.2fx the decode time, over the %.1fx budget", ratio, maxRatio)
	}
	if rss > maxRSS {
		t.Errorf("peak RSS %d MiB, over the %d MiB budget", rss>>20, maxRSS>>20)
	}
	planRatio := float64(plan) / float64(check)
	t.Logf("plan --all %v, %.2fx check (budget %.1f), peak RSS %d MiB", plan, planRatio, maxPlanRatio, planRSS>>20)
	if planRatio > maxPlanRatio {
		t.Errorf("plan --all takes %.2fx the time of check, over the %.1fx budget", planRatio, maxPlanRatio)
	}
	if planRSS > maxRSS {
		t.Errorf("plan --all: peak RSS %d MiB, over the %d MiB budget", planRSS>>20, maxRSS>>20)
	}
}

// runBinary runs the binary, which must exit with code (plan --all exits 1 when
// nodes fail), and returns its peak RSS.
func runBinary(t *testing.T, code int, bin string, args ...string) int64 {
	t.Helper()
	cmd := exec.Command(bin, args...)
	out, err := cmd.CombinedOutput()
	if got := cmd.ProcessState.ExitCode(); got != code {
		t.Fatalf("%s: exit %d (%v)\n%.2000s", args[0], got, err, out)
	}
	return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024
}

func best(t *testing.T, n int, f func()) time.Duration {
	t.Helper()
	d, _ := fleetgen.Best(n, func() error { f(); return nil })
	return d
}

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
// in at most 1.5x the time to merely decode it, in at most 1 GiB.
const (
	maxRatio = 1.5
	maxRSS   = 1 << 30
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
	var rss int64
	check := best(t, 3, func() {
		cmd := exec.Command(bin, "check", filepath.Join(dir, "k8s"), "--matrix", matrix, "-o", "json", "--fail-on", "none")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("check: %v\n%.2000s", err, out)
		}
		rss = max(rss, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss*1024)
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
}

func best(t *testing.T, n int, f func()) time.Duration {
	t.Helper()
	d, _ := fleetgen.Best(n, func() error { f(); return nil })
	return d
}

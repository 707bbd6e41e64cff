package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/drvcheck/drvcheck/internal/fleetgen"
)

// Renders that scale with the repository (issue 40): 2,000 Argo CD
// Applications of one local chart of 50 templates, an ApplicationSet's
// output, checked in at most 20 s and 1 GiB.
const (
	renderApps      = 2000
	renderTemplates = 50
	maxRenderTime   = 20 * time.Second
)

// TestRenderBudget runs the real binary on fleetgen.WriteApps' repository
// under make bench (DRVCHECK_FLEET_BUDGET=1), three times, and holds the
// median to the budget.
func TestRenderBudget(t *testing.T) {
	if os.Getenv("DRVCHECK_FLEET_BUDGET") == "" {
		t.Skip("set DRVCHECK_FLEET_BUDGET=1 (make bench) to measure the render budget")
	}
	bin := filepath.Join(t.TempDir(), "drvcheck")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/drvcheck").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	if err := fleetgen.WriteApps(dir, renderApps, renderTemplates); err != nil {
		t.Fatal(err)
	}
	var took []time.Duration
	var rss int64
	for range 3 {
		took = append(took, timed(t, func() {
			_, r, _ := runBinary(t, 0, bin, "check", dir, "-o", "json", "--fail-on", "none")
			rss = max(rss, r)
		}))
	}
	t.Logf("%d Applications of a chart of %d templates: check %v (%v-%v), peak RSS %d MiB",
		renderApps, renderTemplates, median(took).Round(10*time.Millisecond), slices.Min(took).Round(10*time.Millisecond),
		slices.Max(took).Round(10*time.Millisecond), rss>>20)
	if median(took) > maxRenderTime {
		t.Errorf("check took %v, over the %v budget", median(took), maxRenderTime)
	}
	if rss > maxRSS {
		t.Errorf("peak RSS %d MiB, over the %d MiB budget", rss>>20, maxRSS>>20)
	}
}

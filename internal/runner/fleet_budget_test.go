package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/drvcheck/drvcheck/internal/fleetgen"
)

// Budget from the project's standards: the target fleet checked from files
// in at most 1.5x the time to merely decode it, in at most 1 GiB; and its
// whole rollout simulated (plan --all) in at most 2x the time of check.
// At three times the fleet (15,000 nodes) check keeps the same ratio to
// its own floor, and takes at most 3.3x the time and memory of the target
// fleet's: cost that grows with the fleet, not faster (issue 40).
const (
	maxRatio     = 1.5
	maxRSS       = 1 << 30
	maxPlanRatio = 2.0
	maxGrowth    = 3.3
)

// findingAllowance is what check may take for each finding beyond
// maxRatio, in the decode floor's time per node. It applies where a shape
// has a fixed twin to measure its findings' cost against, capacity's
// 10,417 findings on 5,000 nodes (docs/performance.md, "The floor with
// nothing held, and the allowance per finding"); the twin itself is held
// to maxRatio.
const findingAllowance = 0.25

// TestFleetBudget runs the real binary on every shape of the target fleet
// (fleetgen.Shapes), at each size of DRVCHECK_BENCH_SIZES (times the
// target fleet, "1,3" by default; make bench-50k adds 10), and holds each
// to the budget against its own decode floor. Decode and check alternate,
// run by run and size by size, each on memory a keeper holds warm
// (warmth_test.go) and on files just read (filecache_test.go), so that
// all meet the same machine; the ratio is of
// their medians, the growth from the first size the median of each round's
// ratio (growth), and the spread is printed. It takes minutes, so it runs
// under make bench (DRVCHECK_FLEET_BUDGET=1, DRVCHECK_BENCH_RUNS runs each,
// 5 by default; DRVCHECK_BENCH_SHAPES picks shapes), on an otherwise idle
// machine.
func TestFleetBudget(t *testing.T) {
	if os.Getenv("DRVCHECK_FLEET_BUDGET") == "" {
		t.Skip("set DRVCHECK_FLEET_BUDGET=1 (make bench) to measure the speed budget")
	}
	runs := 5
	if n, err := strconv.Atoi(os.Getenv("DRVCHECK_BENCH_RUNS")); err == nil && n > 0 {
		runs = n
	}
	sizes, err := benchSizes(os.Getenv("DRVCHECK_BENCH_SIZES"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "drvcheck")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/drvcheck")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	only := os.Getenv("DRVCHECK_BENCH_SHAPES") // names, comma-separated; empty: every shape
	for _, shape := range fleetgen.Shapes {
		if only != "" && !slices.Contains(strings.Split(only, ","), shape.Name) {
			continue
		}
		t.Run(shape.Name, func(t *testing.T) {
			var first *sized
			for _, m := range measureSizes(t, bin, shape, runs, sizes) {
				m.report(t, first)
				m.hold(t, first)
				if first == nil {
					first = m
				}
			}
		})
	}
}

// benchSizes parses DRVCHECK_BENCH_SIZES: multiples of the target fleet,
// the first of them the one the others grow from.
func benchSizes(s string) ([]int, error) {
	if s == "" {
		return []int{1, 3}, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return nil, fmt.Errorf("DRVCHECK_BENCH_SIZES=%q: want multiples of the target fleet such as 1,3,10", s)
		}
		out = append(out, k)
	}
	return out, nil
}

// sized is what one shape at one size measured.
type sized struct {
	k                   int
	nodes               int
	decode, check, plan []time.Duration
	// planCheck are check's runs paired with plan's, each just before.
	planCheck           []time.Duration
	decodeCPU, checkCPU []time.Duration
	// checkSys is check's system time, run by run: the kernel's part,
	// where memory the host took back costs (warmth_test.go).
	checkSys []time.Duration
	// floorDry and checkDry count the runs whose keeper had given all it
	// held before the run ended (keeper.stop).
	floorDry, checkDry int
	// decodeSteal and checkSteal are the shares of the machine's CPUs its
	// host took during each run (steal_test.go).
	decodeSteal, checkSteal []float64
	rss, planRSS            int64
	findings                map[string]int
	// twin is the same size of the shape's fixed twin (fleetgen.Twin),
	// measured alike, for the allowance per finding.
	twin *sized
}

// measureSizes writes the shape at every size, and its fixed twin if it
// has one, and times decode and check on each, run by run, so that every
// size and the twin meet the same machine: measured one size after the
// other, a machine that slowed between them made the growth from the first
// size a measure of the machine. Then plan --all on the shape at each
// size. plan --all is left out at ten times the fleet, where check alone
// is the question (does it finish, in what memory).
func measureSizes(t *testing.T, bin string, shape fleetgen.Spec, runs int, sizes []int) []*sized {
	var ms []*sized
	var fleets, shapes []*written
	for _, k := range sizes {
		spec := shape.Times(k)
		m := &sized{k: k, nodes: spec.Nodes}
		f := write(t, spec, m)
		ms, fleets, shapes = append(ms, m), append(fleets, f), append(shapes, f)
		if twin, ok := fleetgen.Twin(shape); ok {
			twin = twin.Times(k)
			m.twin = &sized{k: k, nodes: twin.Nodes}
			fleets = append(fleets, write(t, twin, m.twin))
		}
	}
	for range runs {
		for _, f := range fleets {
			f.measure(t, bin)
		}
	}
	for _, f := range shapes {
		if f.m.k < 10 {
			f.plan(t, bin, max(1, (runs+1)/2))
		}
	}
	return ms
}

// plan times plan --all on the fleet: every node rolls, windows of a
// quarter of the fleet at once, the heaviest rollout the flags can ask for.
// Each run follows a check of its own, and the two are a pair (planRatio):
// timed after all of check's runs, plan met a machine that had sped up or
// slowed since, and gitops's plan measured 1.56x to 2.19x its check over
// four benches of one build (docs/performance.md).
func (f *written) plan(t *testing.T, bin string, runs int) {
	m := f.m
	for range runs {
		k := keepWarm(t, m.warmth())
		warmFiles(t, f.dir)
		m.planCheck = append(m.planCheck, timed(t, func() {
			f.check(t, k, bin)
		}))
		k.stop(t)
		k = keepWarm(t, max(m.warmth(), warmthFor(m.planRSS)))
		warmFiles(t, f.dir)
		m.plan = append(m.plan, timed(t, func() {
			_, r, _ := runFollowed(t, k, 1, bin, "plan", "--all", "--driver", "580.90.07", "--max-parallel-upgrades", "0", "--max-unavailable", "25%",
				f.k8s, "--matrix", f.matrix, "-o", "json")
			m.planRSS = max(m.planRSS, r)
		}))
		k.stop(t)
	}
}

// written is a fleet on disk and what it measured.
type written struct {
	dir, k8s, matrix string
	m                *sized
}

func write(t *testing.T, shape fleetgen.Spec, m *sized) *written {
	dir := t.TempDir()
	matrix, err := fleetgen.Write(dir, shape)
	if err != nil {
		t.Fatal(err)
	}
	return &written{dir: dir, k8s: filepath.Join(dir, "k8s"), matrix: matrix, m: m}
}

// measure times one decode and one check of the fleet, each on memory a
// keeper holds warm (warmth_test.go) and files just read (warmFiles).
func (f *written) measure(t *testing.T, bin string) {
	m := f.m
	// The floor is decoded with nothing of the test's held: the collector
	// paces itself by the heap, and check's last output, still held (17 MB
	// of JSON on capacity at 15,000 nodes), made that shape's floor take a
	// fifth less time than after a collection (docs/performance.md).
	// keepWarm ends with that collection (resetPeak).
	k := keepWarm(t, m.warmth())
	k.follow(t, os.Getpid())
	warmFiles(t, f.dir)
	before := selfCPU()
	wall, steal := stolen(t, func() {
		if _, err := decodeOnly(f.dir); err != nil {
			t.Fatal(err)
		}
	})
	m.decode, m.decodeSteal = append(m.decode, wall), append(m.decodeSteal, steal)
	m.decodeCPU = append(m.decodeCPU, selfCPU()-before)
	if k.stop(t) == 0 {
		m.floorDry++
	}
	var out []byte
	k = keepWarm(t, m.warmth())
	warmFiles(t, f.dir)
	wall, steal = stolen(t, func() {
		var r int64
		var cpu usage
		out, r, cpu = f.check(t, k, bin)
		m.rss = max(m.rss, r)
		m.checkCPU, m.checkSys = append(m.checkCPU, cpu.total()), append(m.checkSys, cpu.sys)
	})
	m.check, m.checkSteal = append(m.check, wall), append(m.checkSteal, steal)
	if k.stop(t) == 0 {
		m.checkDry++
	}
	m.findings = findingsPerRule(t, out)
}

// check runs check on the fleet, on memory k keeps warm: the same run in
// measure and in plan's pairs, so that plan is held to the check measured.
func (f *written) check(t *testing.T, k *keeper, bin string) ([]byte, int64, usage) {
	t.Helper()
	return runFollowed(t, k, 0, bin, "check", f.k8s, "--matrix", f.matrix, "-o", "json", "--fail-on", "none")
}

// warmth is how much warm memory to keep for a run on m's fleet:
// warmthFor its peak so far or, before the first run, for 160 KB per node
// (the shapes peak at 130-150 KB per node).
func (m *sized) warmth() int64 {
	if m.rss > 0 {
		return warmthFor(m.rss)
	}
	return warmthFor(int64(m.nodes) * 160 << 10)
}

// warmthFor is the keeper for a run that peaks at peak: a quarter more
// than the peak, and keepAhead on top. The keeper stays keepAhead ahead of
// the run until it has given all it holds, which is once the run has grown
// by what it holds less keepAhead: sized at a quarter more than the peak
// alone, it ran dry before any run that peaks below 2 GiB reached its
// peak, and what the run took after met memory the host had taken back.
// packed's 15,000-node checks spent 1.04-1.05 s in the kernel (medians of
// two benches) against 0.67-0.69 s with keepAhead on top; its 5,000-node
// checks 0.14-0.16 s either way (docs/performance.md).
func warmthFor(peak int64) int64 { return peak*5/4 + keepAhead }

// findingsPerRule counts check -o json's findings by rule.
func findingsPerRule(t *testing.T, out []byte) map[string]int {
	t.Helper()
	var res struct{ Findings []struct{ Rule string } }
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("check -o json: %v", err)
	}
	n := map[string]int{}
	for _, f := range res.Findings {
		n[f.Rule]++
	}
	return n
}

func (m *sized) ratio() float64 { return float64(median(m.check)) / float64(median(m.decode)) }

// planRatio is plan --all's time over check's, the median of its pairs.
func (m *sized) planRatio() float64 { return paired(m.plan, m.planCheck) }

// budget is the ratio m is held to: maxRatio, plus findingAllowance per
// finding per node where the shape has a fixed twin.
func (m *sized) budget() float64 {
	if m.twin == nil {
		return maxRatio
	}
	return maxRatio + findingAllowance*float64(m.count())/float64(m.nodes)
}

// count is the number of findings.
func (m *sized) count() int {
	n := 0
	for _, c := range m.findings {
		n += c
	}
	return n
}

// findingCost is what check took beyond its fixed twin, in m's floors,
// and per finding in the floor's time per node (findingAllowance's unit).
func (m *sized) findingCost() (floors, each float64) {
	floors = float64(median(m.check)-median(m.twin.check)) / float64(median(m.decode))
	if m.count() == 0 {
		return floors, 0
	}
	return floors, floors * float64(m.nodes) / float64(m.count())
}

// report logs one size: wall and CPU against the floor, peak memory, and
// the growth from the first size.
func (m *sized) report(t *testing.T, first *sized) {
	r := func(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }
	line := fmt.Sprintf("%dx (%d nodes): decode %v (%v-%v), check %v (%v-%v): ratio %.2f (budget %.2f); CPU %v against %v (%.2f), check's system time %v (%v-%v); peak RSS %d MiB",
		m.k, m.nodes, r(median(m.decode)), r(slices.Min(m.decode)), r(slices.Max(m.decode)),
		r(median(m.check)), r(slices.Min(m.check)), r(slices.Max(m.check)), m.ratio(), m.budget(),
		r(median(m.checkCPU)), r(median(m.decodeCPU)), float64(median(m.checkCPU))/float64(median(m.decodeCPU)),
		r(median(m.checkSys)), r(slices.Min(m.checkSys)), r(slices.Max(m.checkSys)), m.rss>>20)
	line += fmt.Sprintf("; the host took %s of the CPUs during the floor, %s during check (rounds %s)",
		percent(median(m.decodeSteal)), percent(median(m.checkSteal)), shares(m.checkSteal))
	line += fmt.Sprintf("; the keeper ran dry in %d of %d floors and %d of %d checks", m.floorDry, len(m.decode), m.checkDry, len(m.check))
	if len(m.plan) > 0 {
		line += fmt.Sprintf("; plan --all %v, %.2fx the check run before it (budget %.1f; %.2f-%.2fx), peak RSS %d MiB",
			r(median(m.plan)), m.planRatio(), maxPlanRatio, slices.Min(pairs(m.plan, m.planCheck)), slices.Max(pairs(m.plan, m.planCheck)), m.planRSS>>20)
	}
	if w := m.twin; w != nil {
		floors, each := m.findingCost()
		line += fmt.Sprintf("; fixed twin: decode %v, check %v: ratio %.2f (budget %.1f); %d findings cost %.2f floors, %.2f of the floor per node each (allowance %.2f)",
			r(median(w.decode)), r(median(w.check)), w.ratio(), maxRatio, m.count(), floors, each, findingAllowance)
	}
	if first != nil {
		// The floor is the same work at each size: where it grew by more or
		// less than k/first.k, the machine's speed moved between the sizes,
		// and check's growth over the floor's says what the code did.
		growths := pairs(m.check, first.check)
		check, floor := median(growths), paired(m.decode, first.decode)
		line += fmt.Sprintf("; from %dx: check %.2fx (rounds %s), peak %.2fx, floor %.2fx (check over floor %.2fx), %d B per node at the peak",
			first.k, check, rounds(growths), float64(m.rss)/float64(first.rss), floor, check/floor, m.rss/int64(m.nodes))
	}
	t.Log(line)
}

// hold fails what is over budget. The 1 GiB is the target fleet's; a
// larger one is held to growing at most maxGrowth times for three times
// the size, and its findings to those of the first size scaled.
func (m *sized) hold(t *testing.T, first *sized) {
	if m.ratio() > m.budget() {
		t.Errorf("%dx: check takes %.2fx the decode time, over the %.2fx budget", m.k, m.ratio(), m.budget())
	}
	if w := m.twin; w != nil && w.ratio() > maxRatio {
		t.Errorf("%dx: check takes %.2fx the decode time on the fixed twin, over the %.1fx budget", m.k, w.ratio(), maxRatio)
	}
	if w := m.twin; w != nil && w.count() != 0 {
		t.Errorf("%dx: the fixed twin finds %v, want nothing: its findings' cost is not measured", m.k, w.findings)
	}
	if len(m.plan) > 0 {
		if pr := m.planRatio(); pr > maxPlanRatio {
			t.Errorf("%dx: plan --all takes %.2fx the time of check, over the %.1fx budget", m.k, pr, maxPlanRatio)
		}
	}
	if first == nil {
		if m.rss > maxRSS || m.planRSS > maxRSS {
			t.Errorf("%dx: peak RSS %d MiB (plan --all %d MiB), over the %d MiB budget", m.k, m.rss>>20, m.planRSS>>20, maxRSS>>20)
		}
		if m.k == 1 {
			if want := recordedFindings(t, 1, shapeOf(t)); !maps.Equal(m.findings, want) {
				t.Errorf("findings per rule %v, before the speed work %v", m.findings, want)
			}
		}
		return
	}
	bound := maxGrowth * float64(m.k) / 3
	if g := paired(m.check, first.check); m.k == 3*first.k && g > bound {
		t.Errorf("%dx: check takes %.2fx its time at %dx, over %.1fx", m.k, g, first.k, bound)
	}
	if g := float64(m.rss) / float64(first.rss); m.k == 3*first.k && g > bound {
		t.Errorf("%dx: peak RSS %.2fx that at %dx, over %.1fx", m.k, g, first.k, bound)
	}
	if why := scaledFindings(first.findings, m.findings, m.k/first.k); why != "" {
		t.Errorf("%dx: %s", m.k, why)
	}
}

func shapeOf(t *testing.T) string { return filepath.Base(t.Name()) }

// runBinary runs the binary, which must exit with code (plan --all exits 1 when
// nodes fail), and returns its standard output, peak RSS and CPU time.
func runBinary(t *testing.T, code int, bin string, args ...string) ([]byte, int64, usage) {
	t.Helper()
	return runFollowed(t, nil, code, bin, args...)
}

// runFollowed is runBinary with the keeper k, if not nil, giving its warm
// memory to the run as it grows.
func runFollowed(t *testing.T, k *keeper, code int, bin string, args ...string) ([]byte, int64, usage) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", args[0], err)
	}
	if k != nil {
		k.follow(t, cmd.Process.Pid)
	}
	err := cmd.Wait()
	if got := cmd.ProcessState.ExitCode(); got != code {
		t.Fatalf("%s: exit %d (%v)", args[0], got, err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return out.Bytes(), ru.Maxrss * 1024, usage{user: cmd.ProcessState.UserTime(), sys: cmd.ProcessState.SystemTime()}
}

// usage is a run's CPU time, in the program and in the kernel.
type usage struct{ user, sys time.Duration }

func (u usage) total() time.Duration { return u.user + u.sys }

// selfCPU is the test process's CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func timed(t *testing.T, f func()) time.Duration {
	t.Helper()
	start := time.Now()
	f()
	return time.Since(start)
}

// paired is how much longer runs took than base's: the median of each
// pair's ratio, a run over base's run of the same round (the first size's
// in measureSizes, the check before it in plan), so that a machine whose
// speed drifts between rounds moves both of a pair. A ratio of medians
// took its runs from different rounds, and runs of one size were up to
// 45% apart (docs/performance.md).
func paired(runs, base []time.Duration) float64 { return median(pairs(runs, base)) }

// pairs are each run's time over base's run of the same round.
func pairs(runs, base []time.Duration) []float64 {
	r := make([]float64, len(runs))
	for i := range runs {
		r[i] = float64(runs[i]) / float64(base[i])
	}
	return r
}

// rounds lists each round's ratio, in the order measured: how far apart
// they are says how much of a growth is the machine's.
func rounds(ratios []float64) string {
	s := make([]string, len(ratios))
	for i, r := range ratios {
		s[i] = strconv.FormatFloat(r, 'f', 2, 64)
	}
	return strings.Join(s, " ")
}

// median is the middle value, or the mean of the two middle ones: with an
// even number of runs the upper of the two is the slower run.
func median[T time.Duration | float64](vs []T) T {
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	return (s[(n-1)/2] + s[n/2]) / 2
}

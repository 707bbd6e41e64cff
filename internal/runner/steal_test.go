package runner

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The time the host took from the machine during a measured run.
//
// The project's machine is a virtual one, and its host runs other guests:
// what Linux counts as steal (the eighth figure of /proc/stat's cpu line)
// is time this machine's CPUs were ready to run and the host ran something
// else. A round whose runs lost a share of their CPUs to the host measured
// the host, so each size's line says how much its runs lost. In the first
// bench that said it, the host took 1-5% in every run while the rounds
// spread as before (packed 2.51x to 4.30x): on this machine steal is not
// what moves a run's time, and the line lets each bench show it again
// (docs/performance.md).

// userHz is the unit of /proc/stat's times: Linux exports them in
// USER_HZ, 100 per second on every architecture it runs on, whatever the
// kernel's own tick.
const userHz = 100

// hostSteal is the steal time of all the machine's CPUs so far, and false
// where the machine does not say (not Linux, or no steal field).
func hostSteal() (time.Duration, bool) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil {
		return 0, false
	}
	return stealOf(line)
}

// stealOf reads the steal time from /proc/stat's first line, "cpu user
// nice system idle iowait irq softirq steal ...".
func stealOf(line string) (time.Duration, bool) {
	fields := strings.Fields(line)
	if len(fields) < 9 || fields[0] != "cpu" {
		return 0, false
	}
	ticks, err := strconv.ParseUint(fields[8], 10, 63)
	if err != nil {
		return 0, false
	}
	return time.Duration(ticks) * time.Second / userHz, true
}

// stolen runs f and returns its wall time and the share of the machine's
// CPU time over it that the host took: 0 where the machine does not say.
func stolen(t *testing.T, f func()) (time.Duration, float64) {
	t.Helper()
	before, ok := hostSteal()
	wall := timed(t, f)
	after, ok2 := hostSteal()
	if !ok || !ok2 || wall <= 0 {
		return wall, 0
	}
	return wall, float64(after-before) / float64(wall*time.Duration(runtime.NumCPU()))
}

// percent writes a share as a whole percentage.
func percent(share float64) string { return strconv.FormatFloat(100*share, 'f', 0, 64) + "%" }

// shares lists each round's share, in the order measured.
func shares(s []float64) string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = percent(v)
	}
	return strings.Join(out, " ")
}

func TestStealOf(t *testing.T) {
	for _, c := range []struct {
		line string
		want time.Duration
		ok   bool
	}{
		{"cpu  2677153 1430 1269112 2231795 36107 0 14148 72477 0 0\n", 724770 * time.Millisecond, true},
		{"cpu  10 0 5 100 0 0 0 3\n", 30 * time.Millisecond, true},
		{"cpu  10 0 5 100 0 0 0\n", 0, false},        // a kernel before steal was counted
		{"cpu0 10 0 5 100 0 0 0 3 0 0\n", 0, false},  // a single CPU's line, not the machine's
		{"cpu  10 0 5 100 0 0 0 x 0 0\n", 0, false},  // not a number
		{"cpu  10 0 5 100 0 0 0 -3 0 0\n", 0, false}, // not a count
		{"intr 1 2 3 4 5 6 7 8 9 10\n", 0, false},    // another line
	} {
		got, ok := stealOf(c.line)
		if got != c.want || ok != c.ok {
			t.Errorf("stealOf(%q) = %v, %v; want %v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

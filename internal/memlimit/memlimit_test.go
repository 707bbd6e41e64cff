package memlimit

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestRaised(t *testing.T) {
	const mib = 1 << 20
	cases := []struct {
		name                       string
		limit, live, ceiling, want int64
	}{
		{"a small heap keeps the floor", 900 * mib, 300 * mib, 18000 * mib, 900 * mib},
		{"the target fleet's heap keeps the floor", 900 * mib, 500 * mib, 18000 * mib, 900 * mib},
		{"at three quarters it holds", 900 * mib, 675 * mib, 18000 * mib, 900 * mib},
		{"past three quarters it triples the live heap", 900 * mib, 700 * mib, 18000 * mib, 2100 * mib},
		{"never past the ceiling", 900 * mib, 5000 * mib, 6000 * mib, 6000 * mib},
		{"at the ceiling it stays", 6000 * mib, 5000 * mib, 6000 * mib, 6000 * mib},
		{"never lowered", 3000 * mib, 100 * mib, 18000 * mib, 3000 * mib},
		{"a limit the input set keeps twice the live heap", 1920 * mib, 1193 * mib, 18000 * mib, 2386 * mib},
		{"a limit the input set holds up to half live", 1920 * mib, 960 * mib, 18000 * mib, 1920 * mib},
		{"twice the live heap, not past the ceiling", 1920 * mib, 1193 * mib, 2000 * mib, 2000 * mib},
		{"the floor keeps its half", 900 * mib, 600 * mib, 18000 * mib, 900 * mib},
	}
	for _, c := range cases {
		if got := raised(c.limit, c.live, c.ceiling); got != c.want {
			t.Errorf("%s: raised(%d, %d, %d) = %d MiB, want %d MiB", c.name, c.limit/mib, c.live/mib, c.ceiling/mib, got/mib, c.want/mib)
		}
	}
}

// TestLimitFollowsTheLiveHeap runs the watch for real, at a small floor:
// a live heap past half the limit raises it after the next collection,
// as the fleet's does at 900 MiB.
func TestLimitFollowsTheLiveHeap(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const floor = 16 << 20
	start(floor, 1<<40)
	if got := Limit(); got != floor {
		t.Fatalf("limit after start = %d, want %d", got, floor)
	}
	keep := make([][]byte, 0, 64)
	for range 48 {
		keep = append(keep, make([]byte, 1<<20))
	}
	deadline := time.Now().Add(10 * time.Second)
	for Limit() < 48<<20*4/3 && time.Now().Before(deadline) {
		runtime.GC() // the finalizer of this cycle's sentinel runs after it
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(keep)
	// After a collection the live heap is at most three quarters of the
	// limit.
	if got := Limit(); got < 48<<20*4/3 {
		t.Errorf("limit with 48 MiB live = %d MiB, want at least 4/3 of the live heap", got>>20)
	}
}

// The input read raises the limit to perByte times it, within the
// ceiling; the target fleet's stays at the floor.
func TestLimitFollowsTheInput(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const mib = 1 << 20
	start(Floor, 3000*mib)
	Input(27 * mib) // the target fleet's YAML
	if got := Limit(); got != Floor {
		t.Errorf("limit after 27 MiB of input = %d MiB, want the floor", got/mib)
	}
	Input(55 * mib) // three times it
	if got := Limit(); got != 82*perByte*mib {
		t.Errorf("limit after 82 MiB of input = %d MiB, want %d", got/mib, 82*perByte)
	}
	Input(1000 * mib)
	if got := Limit(); got != 3000*mib {
		t.Errorf("limit past the ceiling = %d MiB, want the ceiling", got/mib)
	}
}

// The nodes read raise the limit to the Floor per 5,000 of them: the target
// fleet's 5,000 stay at the floor, three times them get three times it.
func TestLimitFollowsTheNodes(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const mib = 1 << 20
	start(Floor, 4000*mib)
	Nodes(5000)
	if got := Limit(); got != Floor {
		t.Errorf("limit for 5,000 nodes = %d MiB, want the floor", got/mib)
	}
	Nodes(15000)
	if got := Limit(); got != 3*Floor {
		t.Errorf("limit for 15,000 nodes = %d MiB, want %d", got/mib, 3*Floor/mib)
	}
	Nodes(5000) // never lowered
	if got := Limit(); got != 3*Floor {
		t.Errorf("limit after fewer nodes = %d MiB, want it kept at %d", got/mib, 3*Floor/mib)
	}
	Nodes(50000)
	if got := Limit(); got != 4000*mib {
		t.Errorf("limit for 50,000 nodes = %d MiB, want the ceiling", got/mib)
	}
}

// Package memlimit sets the garbage collector's targets for a run of
// drvcheck: the memory limit follows the input as it is read, the fleet's
// nodes and the heap it needs, within the memory the machine offers,
// instead of a fixed figure the live heap of a large fleet passes (which
// left the collector running without pause: a 15,000-node fleet took 5x
// the time of 5,000).
package memlimit

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Floor is the limit a run starts with: within it the target fleet (5,000
// nodes, 20,000 workloads) is checked in the project's 1 GiB budget.
const Floor = 900 << 20

// gcPercent trades memory for time: a run allocates several times what it
// keeps and lives seconds, so the collector runs a third as often as by
// default until the heap nears the limit.
const gcPercent = 300

// A collection that finds more than three quarters of the limit live
// raises the limit to room times the live heap: the collector then runs
// after the program has allocated about twice what it keeps, as GOGC=200
// would, instead of after every few megabytes. Below three quarters the
// limit stays: the target fleet's check and plan --all keep at most 500
// MiB live, and stay within the project's 1 GiB.
const room = 3

// perByte is the limit per byte of input read: make bench's fleets keep 16
// to 24 bytes live per byte of YAML, and a limit of about twice that lets
// the collector run after the program allocates as much as it keeps. The
// target fleet (20-30 MB) stays at the Floor; three times it (60-90 MB)
// gets 2-3 GiB from its first files, instead of passing through a stretch
// where a heap near the floor is marked every few hundred megabytes.
const perByte = 33

var (
	mu      sync.Mutex
	limit   int64
	ceiling int64 // 0 until Tune: a library's or a test's process is left alone
	input   int64
)

// Tune sets GOGC and the memory limit unless the environment sets them
// (GOGC, GOMEMLIMIT: the user's choice wins), and watches the live heap
// after each collection to raise the limit as the input needs, up to
// three quarters of the memory the machine or the cgroup offers.
func Tune() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	start(Floor, Ceiling())
}

// start sets the limit to floor, within ceiling, and watches.
func start(floor, top int64) {
	mu.Lock()
	ceiling, input = top, 0
	limit = min(floor, ceiling)
	debug.SetMemoryLimit(limit)
	mu.Unlock()
	watch()
}

// Ceiling is three quarters of the memory this process may use: the
// cgroup's limit when there is one, else the machine's memory. The rest
// is the kernel's, the page cache's and the runtime's own. It is read once
// per process: internal/hugepages asks as the program starts, and Tune
// asks again in main.
func Ceiling() int64 { return machineCeiling() }

var machineCeiling = sync.OnceValue(func() int64 {
	m := Available()
	if m <= 0 {
		return 1 << 62 // unknown: as Go without a limit
	}
	return m / 4 * 3
})

// watch calls follow after every collection, from the finalizer
// goroutine, for as long as the process lives.
func watch() {
	s := new(sentinel)
	runtime.SetFinalizer(s, func(*sentinel) {
		follow()
		watch()
	})
}

// sentinel is the object whose finalizer marks a collection; it is
// larger than the tiny allocator's 16 bytes, whose objects may share a
// block and never be finalized.
type sentinel struct{ _ [32]byte }

// follow raises the limit when the live heap has come near it.
func follow() {
	live := liveHeap()
	mu.Lock()
	defer mu.Unlock()
	if l := raised(limit, live, ceiling); l != limit {
		limit = l
		debug.SetMemoryLimit(limit)
	}
}

// raised is the limit after a collection that found live bytes live. A
// limit the input set above the Floor (perByte) keeps room for the live
// heap twice over, as perByte means to: plan --all holds two drain models
// and a rollout's, and at 15,000 nodes of packed it kept 1,193 MB live
// under a limit of 1,920 MB, where runs took 11 to 20 s as the runtime
// handed memory back and took it again; the same runs under 2,600 MB took
// 11 to 13 s.
func raised(limit, live, ceiling int64) int64 {
	switch {
	case limit >= ceiling:
		return limit
	case 4*live > 3*limit:
		return min(live*room, ceiling)
	case limit > Floor && 2*live > limit:
		return min(2*live, ceiling)
	}
	return limit
}

// Input counts n more bytes of input read (a file of objects) and raises
// the limit to perByte times all the input read, within the ceiling.
// Renders are not counted: their answers carry the chart's files as well
// as the objects, and 2,000 Argo CD Applications of one chart (tens of
// megabytes of answers, 500 MB live) must stay within 1 GiB; a render that makes a
// large heap raises the limit by the heap. Before Tune, and under
// GOMEMLIMIT, it does nothing.
func Input(n int64) {
	mu.Lock()
	defer mu.Unlock()
	input += n
	raise(input * perByte)
}

// targetNodes are the nodes of the target fleet, the fleet the Floor is
// for; a larger fleet gets as much per node (Nodes). Per byte of input
// alone, a fleet whose YAML is light for the heap it makes had less room
// at 15,000 nodes than at 5,000: capacity's 21 MB reach the Floor only
// through its minimum (41 bytes per byte), its 65 MB got 33 per byte, and
// the run paid one more collection, of 700 MB live, in its last seconds
// (docs/performance.md, issue 40).
const targetNodes = 5000

// Nodes raises the limit to the Floor's share per node of the target fleet
// times the n nodes of the fleet read, within the ceiling. Before Tune, and
// under GOMEMLIMIT, it does nothing.
func Nodes(n int) {
	mu.Lock()
	defer mu.Unlock()
	raise(Floor * int64(n) / targetNodes)
}

// raise sets the limit to want, within the ceiling, when that is higher.
// The caller holds mu.
func raise(want int64) {
	if ceiling == 0 {
		return
	}
	if want = min(want, ceiling); want > limit {
		limit = want
		debug.SetMemoryLimit(limit)
	}
}

// Limit returns the memory limit in force.
func Limit() int64 { return debug.SetMemoryLimit(-1) }

var liveSample = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}

// liveHeap is the heap the last collection marked live.
func liveHeap() int64 {
	metrics.Read(liveSample)
	if liveSample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(liveSample[0].Value.Uint64())
}

//go:build linux && (amd64 || arm64)

package hugepages

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"syscall"

	"github.com/drvcheck/drvcheck/internal/memlimit"
)

// The heap is marked while the program starts, before its first
// collection: until then no page of the heap has been freed, so the block
// lands on pages never used. After one, it may start on freed pages, and
// Go then zeroes all of it, every page touched in small pages (one `drvcheck
// version` in ten did so when it ran from main).
func init() { advise() }

// advise asks Linux for transparent huge pages over the addresses the
// heap grows into, where the system gives them only on request
// (transparent_hugepage=madvise, the default of many distributions). The
// target fleet's run touches up to 900 MiB of fresh heap, a 15,000-node
// fleet's 2 GiB: with 4 KiB pages that is 230,000 to 500,000 page
// faults, and on the project's virtual machine a quarter of the run's CPU
// time went there (docs/performance.md). Go maps the heap as it grows and
// does not ask for huge pages itself, so a block as large as the heap may
// grow is allocated, never touched (it takes addresses, not memory),
// marked, and freed: the heap reuses its addresses first.
//
// Nothing is done where it cannot help or could hurt: unless the system
// is in madvise mode with 2 MiB huge pages (arm64 with 64 KiB pages has
// 512 MiB ones); under GODEBUG=disablethp=1, Go's own switch for huge
// pages on the heap; after a collection (see init); and when the block
// could not be mapped (ulimit -v or -d, strict overcommit, too little
// memory for the kernel's heuristic), which Go would not survive: a test
// mapping of the same size must succeed first.
func advise() {
	size := blockSize()
	if !madviseMode() || strings.Contains(os.Getenv("GODEBUG"), "disablethp=1") || collected() || !mappable(size) {
		return
	}
	mark(size)
	// Frees the block before the heap places its first spans, and returns
	// its pages to the system at once: the block is larger than the limit
	// the run starts with (memlimit.Floor), and left to the scavenger it
	// would be returned piece by piece under that limit. Its pages were
	// never touched, so nothing is zeroed or copied.
	debug.FreeOSMemory()
	marked = true
}

// marked says whether the heap was marked, for the tests.
var marked bool

// blockSize is as much as the heap may grow to: the memory the run may
// use (memlimit.Ceiling, which memlimit raises the limit to as a large
// input needs), at most maxBlock, and no more than GOMEMLIMIT. A block of
// 768 MiB covered the target fleet's heap but half of a 15,000-node
// fleet's: the rest faulted in small pages, and each byte of a larger
// heap cost more than one of a smaller (docs/performance.md, issue 40).
func blockSize() int {
	limit := debug.SetMemoryLimit(-1)
	return int(min(maxBlock, memlimit.Ceiling(), limit))
}

// maxBlock is the largest block marked: a 15,000-node fleet's heap at its
// peak (2.1 GiB). Marking costs no memory, but the heap's bookkeeping of
// the block's pages (a pointer per 8 KiB, written at every start) costs
// 2-4 ms a gigabyte, on every run, and most runs are small: 8 GiB, a
// 50,000-node fleet's heap, made `drvcheck version` 40% slower.
const maxBlock = 3 << 30

// mark allocates the block and marks it; the block is dead once mark
// returns. The allocation is in --profile mem's list (up to 3 GiB, never
// touched).
//
//go:noinline
func mark(size int) {
	b := make([]byte, size)
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) // an old kernel refuses: nothing lost
}

func madviseMode() bool {
	enabled, err1 := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	size, err2 := os.ReadFile("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")
	return err1 == nil && err2 == nil && strings.Contains(string(enabled), "[madvise]") && strings.TrimSpace(string(size)) == "2097152"
}

func collected() bool {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Kind() != metrics.KindUint64 || s[0].Value.Uint64() > 0
}

// mappable maps size bytes as the heap would and unmaps them.
func mappable(size int) bool {
	if limited(syscall.RLIMIT_AS) || limited(syscall.RLIMIT_DATA) {
		return false
	}
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return false
	}
	return syscall.Munmap(b) == nil
}

func limited(resource int) bool {
	var l syscall.Rlimit
	return syscall.Getrlimit(resource, &l) != nil || l.Cur != math.MaxUint64
}

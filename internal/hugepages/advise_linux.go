//go:build linux && (amd64 || arm64)

package hugepages

import (
	"math"
	"os"
	"runtime"
	"strings"
	"syscall"
)

// Advise asks Linux for transparent huge pages over the addresses the
// heap grows into, where the system gives them only on request
// (transparent_hugepage=madvise, the default of many distributions; with
// "always" the heap has them already, and with "never" the request does
// nothing). A fleet's run touches up to 900 MiB of fresh heap: with 4 KiB
// pages that is 230,000 page faults and as many TLB entries, and on the
// project's virtual machine a quarter of the run's CPU time went there
// (docs/performance.md). Go maps the heap as it grows and does not ask for
// huge pages itself, so a block of most of the memory budget is
// allocated, never touched (no memory is used, only addresses), marked,
// and freed: the heap reuses its addresses first. GODEBUG=disablethp=1,
// Go's own switch for huge pages on the heap, turns this off; so do a
// limit on the address space (ulimit -v) and strict overcommit
// (vm.overcommit_memory=2), under which the untouched block would still
// count, and could fail, which Go cannot survive.
func Advise() {
	if strings.Contains(os.Getenv("GODEBUG"), "disablethp=1") || addressSpaceLimited() || strictOvercommit() {
		return
	}
	mark(block)
	runtime.GC() // frees the block, before the heap places its first spans
}

// block is how much of the heap's addresses are marked: most of the
// memory budget, and under GOMEMLIMIT (900 MiB), so that the freed block
// does not push the heap over it and the collector and scavenger start
// as they would.
const block = 768 << 20

// mark allocates the block and marks it; the block is dead once mark
// returns (inside Advise, the collector kept it alive until the heap next
// filled).
//
//go:noinline
func mark(size int) {
	rate := runtime.MemProfileRate
	runtime.MemProfileRate = 0 // --profile mem would list the block first
	b := make([]byte, size)
	runtime.MemProfileRate = rate
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) // an old kernel refuses: nothing lost
}

func strictOvercommit() bool {
	mode, err := os.ReadFile("/proc/sys/vm/overcommit_memory")
	return err != nil || strings.TrimSpace(string(mode)) == "2"
}

func addressSpaceLimited() bool {
	var l syscall.Rlimit
	return syscall.Getrlimit(syscall.RLIMIT_AS, &l) != nil || l.Cur != math.MaxUint64
}

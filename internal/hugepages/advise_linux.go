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
// huge pages itself, so a block as large as the memory budget is
// allocated, never touched (no memory is used, only addresses), marked,
// and freed: the heap reuses its addresses first. GODEBUG=disablethp=1,
// Go's own switch for huge pages on the heap, turns this off, and so does
// a limit on the address space (ulimit -v), where the block could fail.
func Advise() {
	if strings.Contains(os.Getenv("GODEBUG"), "disablethp=1") || addressSpaceLimited() {
		return
	}
	rate := runtime.MemProfileRate
	runtime.MemProfileRate = 0 // --profile mem would list the block first
	block := make([]byte, 1<<30)
	runtime.MemProfileRate = rate
	_ = syscall.Madvise(block, syscall.MADV_HUGEPAGE) // an old kernel refuses: nothing lost
	runtime.KeepAlive(block)
	runtime.GC() // free it now, before the heap's first spans are placed
}

func addressSpaceLimited() bool {
	var l syscall.Rlimit
	return syscall.Getrlimit(syscall.RLIMIT_AS, &l) != nil || l.Cur != math.MaxUint64
}

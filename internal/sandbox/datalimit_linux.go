package sandbox

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// limitData puts the kernel's bound under the sampled ceiling (watch): the
// child's private writable mappings may grow by twice mem from what they
// are now (RLIMIT_DATA counts them from Linux 4.7). A single allocation of
// gigabytes (sprig's repeat of two billion) is then refused when it is
// mapped, before a page of it is touched, where the sampler, on a loaded
// machine, ran only after a gigabyte had been written. The runtime's
// "out of memory" that follows is reported as the ceiling's (ended).
func limitData(mem int64) {
	used := vmData()
	if used <= 0 {
		return // no /proc: the sampler alone
	}
	n := uint64(used + 2*mem)
	_ = syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: n, Max: n})
}

// vmData is the process's data size (VmData of /proc/self/status), in
// bytes; 0 when it cannot be read.
func vmData() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmData:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

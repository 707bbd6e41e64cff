//go:build linux && (amd64 || arm64)

package hugepages

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Where the kernel gives huge pages on request only (madvise), the heap
// the run fills after Advise is backed by them; without the request it
// would have none. (Under "always" it has them anyway, under "never" it
// cannot: skipped.)
func TestHugePagesBackTheHeap(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(mode), "[never]") {
		t.Skipf("transparent huge pages unavailable (%q)", mode)
	}
	if addressSpaceLimited() || strictOvercommit() {
		t.Skip("the address space is limited (ulimit -v) or overcommit strict")
	}
	before := anonHugePages(t)
	Advise()
	keep := make([][]byte, 0, 64<<20/4096)
	for range cap(keep) {
		b := make([]byte, 4096)
		b[0] = 1
		keep = append(keep, b)
	}
	if got := anonHugePages(t) - before; got < 16<<20 {
		t.Errorf("64 MiB of heap filled after Advise, %d KiB more of it in huge pages; want at least 16 MiB", got>>10)
	}
}

// anonHugePages is the process's anonymous memory in huge pages, in bytes.
func anonHugePages(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/smaps_rollup")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "AnonHugePages:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no AnonHugePages in /proc/self/smaps_rollup")
	return 0
}

//go:build linux && (amd64 || arm64)

package hugepages

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Where the kernel gives huge pages on request only (madvise), the heap is
// marked as the program starts, and what it fills afterwards is backed by
// huge pages; unmarked, it would have none.
func TestHugePagesBackTheHeap(t *testing.T) {
	if !madviseMode() {
		t.Skip("transparent huge pages are not given on request (madvise) in 2 MiB pages here")
	}
	if strings.Contains(os.Getenv("GODEBUG"), "disablethp=1") || !mappable(blockSize()) {
		t.Skip("turned off (GODEBUG=disablethp=1), or the block cannot be mapped")
	}
	if !marked {
		t.Fatal("the heap was not marked as the test binary started (a collection ran before the package's init?)")
	}
	before := anonHugePages(t)
	keep := make([][]byte, 0, 64<<20/4096)
	for range cap(keep) {
		b := make([]byte, 4096)
		b[0] = 1
		keep = append(keep, b)
	}
	if got := anonHugePages(t) - before; got < 16<<20 {
		t.Errorf("64 MiB of heap filled after the start, %d KiB more of it in huge pages; want at least 16 MiB", got>>10)
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

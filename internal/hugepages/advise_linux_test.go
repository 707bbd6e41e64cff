//go:build linux && (amd64 || arm64)

package hugepages

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/memlimit"
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

// A large fleet's heap grows past the 768 MiB the block once covered
// (a 15,000-node fleet's peaks at about 2 GiB): what it fills there is in
// huge pages too. The test takes a 2 GiB allocation, which lands where
// the block was, and touches only its last 256 MiB.
func TestHugePagesBackALargeHeap(t *testing.T) {
	if !marked {
		t.Skip("the heap was not marked here (see TestHugePagesBackTheHeap)")
	}
	const size, touched = 2 << 30, 256 << 20
	if memlimit.Ceiling() < size+touched || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("the machine, the cgroup or GOMEMLIMIT leaves too little memory for a 2 GiB heap")
	}
	before := anonHugePages(t)
	b := make([]byte, size)
	for i := size - touched; i < size; i += 4096 {
		b[i] = 1
	}
	got := anonHugePages(t) - before
	runtime.KeepAlive(b)
	if got < touched/2 {
		t.Errorf("256 MiB of heap filled past the first 1.75 GiB, %d MiB more of it in huge pages; want at least 128 MiB", got>>20)
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

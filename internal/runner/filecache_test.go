package runner

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"
)

// The files a measured run reads.
//
// The project's machine pages out memory its kernel sees as cold (a DAMON
// "pageout" scheme: regions accessed at most once per five-second window
// for a minute), and the page cache of a bench's fleet is such memory:
// each file is read once a round. Idle, the 90,000 files of `scattered`
// at 15,000 nodes lost 8% of their cached pages in a minute (83,475 to
// 76,742), and a run read back from disk what was gone: the kernel's read
// took 0.2-0.6 s of a 15,000-node check's CPU on files just read, and
// 1.6-3.1 s on files idle for minutes. The floor is decoded first in each
// round of each size, so it paid for the time its fleet sat idle, and the
// 5,000-node fleet sat through the 15,000-node runs, longer than the
// other way round: over six benches the floor grew 2.29x to 3.04x for
// three times the fleet (docs/performance.md). warmFiles reads every file
// of a fleet just before a measured run, so that each run meets its files
// in the page cache, as a repository just checked out is.

// warmFiles reads every regular file under dir, and discards it.
func warmFiles(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(io.Discard, f)
		return err
	})
	if err != nil {
		t.Fatalf("reading the fleet's files into the page cache: %v", err)
	}
}

// TestWarmFilesCachesEveryFile drops two files from the page cache and
// holds warmFiles to reading them back in, the nested one too.
func TestWarmFilesCachesEveryFile(t *testing.T) {
	dir := t.TempDir()
	paths := []string{filepath.Join(dir, "a.yaml"), filepath.Join(dir, "k8s", "b.yaml")}
	for _, p := range paths {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, 1<<20), 0o644); err != nil {
			t.Fatal(err)
		}
		drop(t, p)
		if n := cached(t, p); n != 0 {
			t.Skipf("%s: %d pages still cached after POSIX_FADV_DONTNEED: this file system keeps them", p, n)
		}
	}
	warmFiles(t, dir)
	for _, p := range paths {
		if n, want := cached(t, p), (1<<20)/os.Getpagesize(); n != want {
			t.Errorf("%s: %d of %d pages cached after warmFiles", p, n, want)
		}
	}
}

// drop writes the file at p back and asks the kernel to drop its pages.
func drop(t *testing.T, p string) {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	const dontNeed = 4 // POSIX_FADV_DONTNEED
	if _, _, errno := syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, dontNeed, 0, 0); errno != 0 {
		t.Fatal(errno)
	}
}

// cached counts the pages of the file at p in the page cache (mincore).
func cached(t *testing.T, p string) int {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Munmap(m) }()
	vec := make([]byte, (len(m)+os.Getpagesize()-1)/os.Getpagesize())
	_, _, errno := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(m))), uintptr(len(m)), uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	if errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

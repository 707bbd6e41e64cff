package repofs

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A plain file of the repository is read the short way, whole, and
// counted; an empty one, and whatever ReadFile refuses or follows, takes
// the long way, which says why: readDirect reads none of it.
func TestReadDirect(t *testing.T) {
	repo, chart, secret := linkedTree(t)
	write(t, filepath.Join(repo, "empty.yaml"), "")
	write(t, filepath.Join(repo, "big.yaml"), strings.Repeat("x", 2000))
	fifo := filepath.Join(repo, "pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	f := newFS(t, Limits{File: 1000, Total: 1000}, repo)
	if data, ok, err := f.readDirect(filepath.Join(chart, "values.yaml")); !ok || err != nil || string(data) != "a: 1\n" {
		t.Errorf("values.yaml: %q, %v, %v; want it read the short way", data, ok, err)
	}
	if got := f.used.Load(); got != 5 {
		t.Errorf("%d bytes counted, want 5", got)
	}
	long := []string{
		filepath.Join(chart, "creds.yaml"),          // a link out
		filepath.Join(chart, "same.yaml"),           // a link in
		filepath.Join(chart, "home", "credentials"), // a folder's link out
		secret,                              // outside the roots
		fifo,                                // not a regular file
		filepath.Join(repo, "big.yaml"),     // over --max-file-size
		filepath.Join(repo, "missing.yaml"), // no such file
		filepath.Join(repo, "empty.yaml"),   // a size of 0, which may not be the size
	}
	for _, name := range long {
		if data, ok, err := f.readDirect(name); ok || data != nil || err != nil {
			t.Errorf("%s: %q, %v, %v; want the long way", name, data, ok, err)
		}
	}
	if data, err := f.ReadFile(filepath.Join(repo, "empty.yaml")); err != nil || len(data) != 0 {
		t.Errorf("an empty file the long way: %q, %v", data, err)
	}
	write(t, filepath.Join(repo, "more.yaml"), strings.Repeat("y", 996))
	if _, ok, err := f.readDirect(filepath.Join(repo, "more.yaml")); !ok || err == nil || !strings.Contains(err.Error(), "more.yaml: the inputs are larger than") {
		t.Errorf("past --max-input-size: %v, %v", ok, err)
	}
}

// readSized stops at the size fstat gave, reads a file that ended early
// to its end, and leaves one that grew to the long way.
func TestReadSized(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.yaml")
	write(t, path, "0123456789")
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	fd := int(file.Fd())
	read := func(size int64) (string, bool) {
		if _, err := file.Seek(0, 0); err != nil {
			t.Fatal(err)
		}
		data, ok, err := readSized(fd, size)
		if err != nil {
			t.Fatal(err)
		}
		return string(data), ok
	}
	if got, ok := read(10); got != "0123456789" || !ok {
		t.Errorf("the size fstat gave: %q, %v", got, ok)
	}
	if got, ok := read(20); got != "0123456789" || !ok {
		t.Errorf("a file that ended early: %q, %v", got, ok)
	}
	if got, ok := read(4); got != "" || ok {
		t.Errorf("a file that grew: %q, %v", got, ok)
	}
}

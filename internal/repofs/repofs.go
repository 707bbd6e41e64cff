// Package repofs is the one way drvcheck opens what a repository holds:
// manifests, charts and their files, values, kustomize patches and
// generator files, GitOps targets, matrices, policies and the config's
// paths. A pull request decides what those files are, symbolic links
// included, so every path is resolved and must stay inside one of the
// run's roots (the repositories its paths are in), only regular files are
// read, and every byte counts against the run's limits. Paths the user
// named on the command line outside every repository are the user's own
// and are read as named (FS.ReadGiven).
package repofs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/drvcheck/drvcheck/internal/fileerr"
)

// The default bounds of what a run reads: far above the target fleet
// (5,000 nodes, 20,000 workloads and 5,000 budgets are about 30 MB of
// manifests, and a kubectl dump of the same a few times that), far below
// what would take the machine down.
const (
	DefaultMaxFile  = 256 << 20
	DefaultMaxTotal = 1 << 30
)

// Limits bound what a run reads: one input (a file, stdin, one chart's
// rendering) and all of them together (zero takes the default), and when
// a stream must have ended (--timeout; zero: never).
type Limits struct {
	File, Total int64
	Until       time.Time
}

// FS opens files for one run. It is safe for concurrent use; its byte
// count is shared by every reader of the run.
type FS struct {
	roots []root
	lim   Limits
	used  *atomic.Int64
	dirs  *sync.Map // folder, as an absolute path -> where it leads (follow)
}

// root is a folder files may be read from, as named and resolved; repo
// says it is a repository's (it holds .git), not a folder the user named
// outside any.
type root struct {
	abs, real string
	repo      bool
}

// ErrOutside is the error of a path that leads out of every root.
var ErrOutside = errors.New("outside the repository")

// New returns an FS whose roots are the folders roots (each resolved
// once; one that does not exist is left out), bounded by lim.
func New(roots []string, lim Limits) (*FS, error) {
	if lim.File <= 0 {
		lim.File = DefaultMaxFile
	}
	if lim.Total <= 0 {
		lim.Total = DefaultMaxTotal
	}
	f := &FS{lim: lim, used: &atomic.Int64{}, dirs: &sync.Map{}}
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			continue // a path that does not exist: its reader names it
		}
		_, git := os.Lstat(filepath.Join(real, ".git"))
		f.roots = append(f.roots, root{abs: abs, real: real, repo: git == nil})
	}
	return f, nil
}

// Roots are the resolved roots, for a child process that reads the same
// files (internal/sandbox).
func (f *FS) Roots() []string {
	out := make([]string, len(f.roots))
	for i, r := range f.roots {
		out[i] = r.real
	}
	return out
}

// Limits are f's bounds.
func (f *FS) Limits() Limits { return f.lim }

// Used is how many bytes the run has read so far.
func (f *FS) Used() int64 { return f.used.Load() }

// Resolve returns the path name leads to, every symbolic link followed,
// or an error when that path is outside every root.
func (f *FS) Resolve(name string) (string, error) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	real, err := f.follow(abs)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, fileerr.Reason(err))
	}
	if f.inRoot(real) {
		return real, nil
	}
	if real != abs {
		return "", fmt.Errorf("%s: not read: a symbolic link %w (to %s)", name, ErrOutside, real)
	}
	return "", fmt.Errorf("%s: not read: %w", name, ErrOutside)
}

// follow is filepath.EvalSymlinks(abs) with the folders on the way
// resolved once per run: a repository of one object per file has
// thousands of files in a folder, and resolving every folder of every
// file's path anew (a system call per folder) was a third of reading it.
// The file itself is looked at each time; when it is a link, or is not
// there, the whole path is walked again, so its target and its error are
// EvalSymlinks'. What a folder leads to is taken as it was when first
// read: a run reads the repository as it found it.
func (f *FS) follow(abs string) (string, error) {
	path, ok := f.inRealDir(abs)
	if !ok {
		return filepath.EvalSymlinks(abs)
	}
	if info, err := os.Lstat(path); err != nil || info.Mode()&fs.ModeSymlink != 0 {
		return filepath.EvalSymlinks(abs)
	}
	return path, nil
}

// inRealDir is abs in the path its folder leads to (resolved once per
// run), not looking at the file itself; false when the folder cannot be
// resolved.
func (f *FS) inRealDir(abs string) (string, bool) {
	dir, base := filepath.Split(abs)
	if base == "" {
		return "", false
	}
	real, ok := f.dirs.Load(dir)
	if !ok {
		r, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return "", false
		}
		real, _ = f.dirs.LoadOrStore(dir, r)
	}
	return filepath.Join(real.(string), base), true
}

// inRoot says whether a resolved path is inside one of the roots.
func (f *FS) inRoot(real string) bool {
	for _, r := range f.roots {
		if Within(real, r.real) {
			return true
		}
	}
	return false
}

// Inside says whether name, as written (no link followed), is in a
// repository: whether the repository decides what it holds. A folder the
// user named outside every repository is a root too (its walk stays in
// it), but what the user names in it is the user's own.
func (f *FS) Inside(name string) bool {
	abs, err := filepath.Abs(name)
	if err != nil {
		return false
	}
	for _, r := range f.roots {
		if r.repo && (Within(abs, r.abs) || Within(abs, r.real)) {
			return true
		}
	}
	return false
}

// Stat describes the file or folder name leads to, inside the roots.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	real, err := f.Resolve(name)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, fileerr.Reason(err))
	}
	return info, nil
}

// IsDir says whether name leads to a folder inside the roots.
func (f *FS) IsDir(name string) bool {
	info, err := f.Stat(name)
	return err == nil && info.IsDir()
}

// IsFile says whether name leads to a regular file inside the roots.
func (f *FS) IsFile(name string) bool {
	info, err := f.Stat(name)
	return err == nil && info.Mode().IsRegular()
}

// ReadDir lists the folder name leads to, inside the roots.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	real, err := f.Resolve(name)
	if err != nil {
		return nil, err
	}
	list, err := os.ReadDir(real)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, fileerr.Reason(err))
	}
	return list, nil
}

// ReadFile reads the regular file name leads to, inside the roots, within
// the limits. What a repository names (a chart's file, a values file of an
// Argo CD Application, a kustomize patch) is read through it.
func (f *FS) ReadFile(name string) ([]byte, error) {
	if data, ok, err := f.readDirect(name); ok {
		return data, err
	}
	file, size, err := f.openRegular(name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return f.read(name, file, size)
}

// openRegular opens the regular file name leads to, inside the roots and
// no larger than one input may be.
func (f *FS) openRegular(name string) (*os.File, int64, error) {
	file, err := f.openDirect(name)
	if err != nil {
		if file, err = f.openResolved(name); err != nil {
			return nil, 0, err
		}
	}
	return f.regular(name, file)
}

// regular keeps an opened file only when it is a regular file no larger
// than one input may be, and returns its size; otherwise it closes it.
func (f *FS) regular(name string, file *os.File) (*os.File, int64, error) {
	info, err := file.Stat()
	switch {
	case err != nil:
		err = fmt.Errorf("%s: %w", name, fileerr.Reason(err))
	case !info.Mode().IsRegular():
		err = fmt.Errorf("%s: not read: not a regular file (%s)", name, KindOf(info.Mode()))
	case info.Size() > f.lim.File:
		err = f.TooLarge(name) // before a byte is read
	}
	if err != nil {
		file.Close()
		return nil, 0, err
	}
	return file, info.Size(), nil
}

// openFlags open a file for reading. O_NONBLOCK: a named pipe swapped in
// after the path was resolved must not hang the open; O_NOFOLLOW: nor may
// a link swapped in for the file.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOFOLLOW

// openDirect opens name in the path its folder leads to, when that is in
// a root, without following a link: most of a repository's files are no
// links, and opening one this way spares looking at it first (a system
// call per file: 90,000 in a fleet of one object per file). Any failure,
// a link's included, leaves the file to openResolved, which says why.
func (f *FS) openDirect(name string) (*os.File, error) {
	path, ok := f.directPath(name)
	if !ok {
		return nil, ErrOutside
	}
	return os.OpenFile(path, openFlags, 0)
}

// directPath is name in the path its folder leads to, when that is in a
// root: where openDirect and readDirect open it, without following a
// link.
func (f *FS) directPath(name string) (string, bool) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return "", false
	}
	path, ok := f.inRealDir(abs)
	return path, ok && f.inRoot(path)
}

// openResolved opens the file name leads to, every link followed, inside
// the roots.
func (f *FS) openResolved(name string) (*os.File, error) {
	real, err := f.Resolve(name)
	if err != nil {
		return nil, err
	}
	file, err := os.OpenFile(real, openFlags, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, fileerr.Reason(err))
	}
	return file, nil
}

// ReadGiven reads a file the user named on the command line (a flag's
// path or an argument): inside a repository, as ReadFile does, since the
// repository decides what it is; elsewhere as named, whatever it is (a
// process substitution is a pipe, /dev/stdin a link to one), within the
// limits and by the run's end.
func (f *FS) ReadGiven(name string) ([]byte, error) {
	f = f.orDefault()
	if f.Inside(name) {
		return f.ReadFile(name)
	}
	return f.bounded(name, func() ([]byte, error) {
		file, err := f.openGiven(name) // a pipe's open waits for its writer: bounded too
		if err != nil {
			return nil, err
		}
		defer file.Close()
		return f.Read(name, file)
	})
}

// openGiven opens a file the user named: inside a repository as
// openRegular does, elsewhere as named.
func (f *FS) openGiven(name string) (*os.File, error) {
	if f.Inside(name) {
		file, _, err := f.openRegular(name)
		return file, err
	}
	file, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, fileerr.Reason(err))
	}
	return file, nil
}

// StreamGiven opens the file the user named as ReadGiven reads it, and
// gives it to decode to read as a stream, within the limits and by the
// run's end: for what is decoded as it is read, never held whole (a
// baseline at the size limit took twice its size, and more, held whole).
func (f *FS) StreamGiven(name string, decode func(io.Reader) error) error {
	f = f.orDefault()
	_, err := f.bounded(name, func() ([]byte, error) {
		file, err := f.openGiven(name)
		if err != nil {
			return nil, err
		}
		defer file.Close()
		return nil, decode(&capped{counted: counted{r: io.LimitReader(file, f.lim.File+1), f: f, name: name}})
	})
	return err
}

// capped is counted, and fails once more than one input may hold has
// been read.
type capped struct {
	counted
	n int64
}

func (c *capped) Read(p []byte) (int, error) {
	n, err := c.counted.Read(p)
	if c.n += int64(n); c.n > c.f.lim.File {
		return n, c.f.TooLarge(c.name)
	}
	return n, err
}

// ReadStream reads r, a stream the user gave (standard input), within
// the limits and by the run's end.
func (f *FS) ReadStream(name string, r io.Reader) ([]byte, error) {
	return f.bounded(name, func() ([]byte, error) { return f.Read(name, r) })
}

// bounded runs read, a read that may block for good (a pipe whose writer
// never closes it), and gives up at Limits.Until naming the input. The
// read is left blocked: the run ends with an error, and the process with
// it.
func (f *FS) bounded(name string, read func() ([]byte, error)) ([]byte, error) {
	if f.lim.Until.IsZero() {
		return read()
	}
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := read()
		done <- result{data, err}
	}()
	timer := time.NewTimer(time.Until(f.lim.Until))
	defer timer.Stop()
	select {
	case r := <-done:
		return r.data, r.err
	case <-timer.C:
		return nil, fmt.Errorf("%s: not read to its end by the run's deadline (--timeout): a pipe whose writer never closes it?", name)
	}
}

// orDefault is f, or for a nil f one without roots and with the default
// limits: what a caller that confines nothing (a test, a live scan's
// flags) reads given paths with.
func (f *FS) orDefault() *FS {
	if f != nil {
		return f
	}
	d, _ := New(nil, Limits{})
	return d
}

// Read reads r, the input called name, within the limits: an endless
// stream fails naming it rather than growing without end. Bytes are
// counted as they arrive, so readers at once overshoot the total by one
// read each at most.
func (f *FS) Read(name string, r io.Reader) ([]byte, error) {
	return f.read(name, r, 0)
}

// read is Read with room for size bytes from the start, the size a
// file's stat gave: one allocation and two reads for a file that is not
// growing, where growing from nothing took several of each.
func (f *FS) read(name string, r io.Reader, size int64) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(int(min(max(size, 0), f.lim.File)) + bytes.MinRead)
	_, err := buf.ReadFrom(&counted{r: io.LimitReader(r, f.lim.File+1), f: f, name: name})
	if err != nil {
		return nil, err
	}
	data := buf.Bytes()
	if int64(len(data)) > f.lim.File {
		return nil, f.TooLarge(name)
	}
	return data, nil
}

// Count adds n bytes that name produced without a file (a chart's
// rendering) to the run's total.
func (f *FS) Count(name string, n int64) error {
	if n > f.lim.File {
		return f.TooLarge(name)
	}
	if f.used.Add(n) > f.lim.Total {
		return f.overTotal(name)
	}
	return nil
}

// TooLarge is the error of an input larger than one may be.
func (f *FS) TooLarge(name string) error {
	return fmt.Errorf("%s: larger than %s, the most one input may be (--max-file-size)", name, Size(f.lim.File))
}

func (f *FS) overTotal(name string) error {
	return fmt.Errorf("%s: the inputs are larger than %s, the most a run reads (--max-input-size)", name, Size(f.lim.Total))
}

// counted adds what it reads to the run's total and fails past it.
type counted struct {
	r    io.Reader
	f    *FS
	name string
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.f.used.Add(int64(n)) > c.f.lim.Total {
		return n, c.f.overTotal(c.name)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return n, fmt.Errorf("%s: %w", c.name, fileerr.Reason(err))
	}
	return n, err
}

// Within says whether path is dir or below it; both are clean and
// absolute.
func Within(path, dir string) bool {
	if path == dir {
		return true
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// KindOf names a file mode's type for messages.
func KindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return m.Type().String()
}

// Size writes n bytes as a quantity (256Mi).
func Size(n int64) string { return resource.NewQuantity(n, resource.BinarySI).String() }

// RepoRoot returns the root of the git repository that holds dir (the
// nearest folder upward with a .git entry), or dir itself outside one.
//
// The path is walked down from the top, and a symbolic link met inside a
// repository ends the walk: a pull request may add a folder that is a link
// to another repository (another checkout on the runner), and what lies
// beyond it is not the repository's, however many .git it holds. Links
// above any repository (a system's /tmp) are followed.
func RepoRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	var chain []string // abs and its ancestors, the top last
	for d := abs; ; d = filepath.Dir(d) {
		chain = append(chain, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	root := ""
	for i := len(chain) - 1; i >= 0; i-- {
		d := chain[i]
		if info, err := os.Lstat(d); err == nil && info.Mode()&fs.ModeSymlink != 0 && root != "" {
			break // a link inside the repository: nothing beyond is its
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			root = d
		}
	}
	if root == "" {
		return abs
	}
	return root
}

// RootsOf are the roots of a run over paths: the repository each path is
// in, or, outside a repository, the folder it names or the folder of the
// file it names. Standard input ("-") has none.
func RootsOf(paths ...string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		if p == "" || p == "-" {
			continue
		}
		dir := p
		if info, err := os.Stat(p); err != nil || !info.IsDir() {
			dir = filepath.Dir(p)
		}
		r := RepoRoot(dir)
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

package report

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"

	"github.com/drvcheck/drvcheck/internal/fileerr"
	"github.com/drvcheck/drvcheck/internal/repofs"
)

// ReplaceFile writes a report to path, as what path is asks:
//   - a regular file, or none: through a temporary file beside it, renamed
//     over path once write has succeeded, so that a reader
//     (node_exporter's textfile collector, a git commit of a snapshot)
//     sees the old file or the new one, never half of one, and a failed
//     run leaves the old one;
//   - a device, a named pipe or a socket (/dev/tty, a FIFO a collector
//     reads): written in place, as a shell's > would, never replaced;
//   - /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N, or a link to
//     one: the process's own descriptor N;
//   - a symbolic link to a regular file: that file, replaced as above,
//     when it is inside the working folder; refused when it is not, since
//     a link a repository holds must not make a report overwrite a file of
//     the runner's (its ~/.bashrc).
//
// What is written in place is opened without blocking: a named pipe that
// no one reads is refused at once, and a reader that stops reading meets
// ctx's deadline (--timeout), where a shell's > would wait for good.
func ReplaceFile(ctx context.Context, path string, write func(io.Writer) error) error {
	target, fd, err := destination(path)
	switch {
	case err != nil:
		return err
	case fd >= 0:
		// A duplicate shares the descriptor's offset and mode, as a
		// shell's redirection set them, and closing it leaves fd open.
		dup, err := syscall.Dup(fd)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		f := os.NewFile(uintptr(dup), path)
		defer f.Close()
		return inPlace(path, f, write)
	}
	info, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("%s: %w", path, fileerr.Reason(err))
	case !info.Mode().IsRegular() && !info.IsDir():
		f, err := openInPlace(ctx, path, target)
		if err != nil {
			return err
		}
		defer f.Close()
		return inPlace(path, f, write)
	}
	return replace(path, target, write)
}

// openInPlace opens a device or a named pipe for writing without waiting
// for a reader, bounded by ctx's deadline when the file can be polled.
func openInPlace(ctx context.Context, path, target string) (*os.File, error) {
	f, err := os.OpenFile(target, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, syscall.ENXIO):
		return nil, fmt.Errorf("%s: not written: a named pipe nobody reads, or a socket (open the reader first)", path)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, fileerr.Reason(err))
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = f.SetWriteDeadline(dl) // a device that cannot be polled writes at once or fails
	}
	return f, nil
}

// destination follows path's links: the file to write, or the descriptor
// a /dev/fd-like name stands for (-1 when none).
func destination(path string) (string, int, error) {
	cur := path
	for range 40 { // the kernel's own bound on a chain of links
		if fd, ok := descriptor(cur); ok {
			return "", fd, nil
		}
		info, err := os.Lstat(cur)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			break
		}
		next, err := os.Readlink(cur)
		if err != nil {
			return "", -1, fmt.Errorf("%s: %w", path, fileerr.Reason(err))
		}
		if !filepath.IsAbs(next) {
			next = filepath.Join(filepath.Dir(cur), next)
		}
		cur = next
	}
	if cur == path {
		return path, -1, nil
	}
	// A link: to a device or pipe it is written in place; to a file, only
	// inside the working folder.
	if info, err := os.Stat(cur); err == nil && !info.Mode().IsRegular() {
		return cur, -1, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", -1, fmt.Errorf("%s: %w", path, err)
	}
	abs, err := filepath.Abs(filepath.Dir(cur))
	if err != nil {
		return "", -1, fmt.Errorf("%s: %w", path, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", -1, fmt.Errorf("%s: %w", path, fileerr.Reason(err))
	}
	if realWD, err := filepath.EvalSymlinks(wd); err != nil || !repofs.Within(filepath.Join(real, filepath.Base(cur)), realWD) {
		return "", -1, fmt.Errorf("%s: not written: a symbolic link to %s, outside the working folder; name the file itself", path, cur)
	}
	return cur, -1, nil
}

var fdName = regexp.MustCompile(`^/(?:dev/fd|proc/self/fd)/([0-9]+)$`)

// descriptor says which of the process's descriptors name is.
func descriptor(name string) (int, bool) {
	switch filepath.Clean(name) {
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	m := fdName.FindStringSubmatch(filepath.Clean(name))
	if m == nil {
		return 0, false
	}
	fd, err := strconv.Atoi(m[1])
	return fd, err == nil
}

// inPlace writes to f as it is, without replacing it.
func inPlace(path string, f io.Writer, write func(io.Writer) error) error {
	if err := write(f); err != nil {
		return fmt.Errorf("%s: %w", path, fileerr.Reason(err))
	}
	return nil
}

// replace writes target through a temporary file beside it, renamed over
// it once write has succeeded.
func replace(path, target string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*")
	if err != nil {
		return fmt.Errorf("%s: %w", path, fileerr.Reason(err))
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	// CreateTemp makes the file private; a report is read by others (a
	// collector running as its own user).
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, fileerr.Reason(err))
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, fileerr.Reason(err))
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("%s: %w", path, fileerr.Reason(err))
	}
	return nil
}

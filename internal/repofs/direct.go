package repofs

import (
	"fmt"
	"syscall"

	"github.com/drvcheck/drvcheck/internal/fileerr"
)

// readDirect reads the regular file name is, in the path its folder leads
// to, with four system calls: open, fstat, one read, close. Through an
// os.File the same took six, since Go offers a file opened O_NONBLOCK to
// its poller (epoll_ctl, refused for a regular file) and reads again for
// the end of the file; on a fleet of one object per file (90,000 files)
// they were a fifth of check's time, and the share grew with the fleet
// (docs/performance.md, issue 40). ok is false, having read nothing, when
// the file must take the long way, which says why it cannot be read: a
// link, a path outside the roots, anything but a regular file, a file
// larger than one input may be, a failed open, or a file that grew while
// it was read. So does an empty file, since a file system that does not
// know a file's size (a FUSE mount's) says 0: the long way reads it to
// its end.
func (f *FS) readDirect(name string) (data []byte, ok bool, err error) {
	path, ok := f.directPath(name)
	if !ok {
		return nil, false, nil
	}
	fd, err := syscall.Open(path, openFlags|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false, nil
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size == 0 || st.Size > f.lim.File {
		return nil, false, nil
	}
	data, ok, err = readSized(fd, st.Size)
	if !ok || err != nil {
		if err != nil {
			err = fmt.Errorf("%s: %w", name, fileerr.Reason(err))
		}
		return nil, ok, err
	}
	if err := f.Count(name, int64(len(data))); err != nil {
		return nil, true, err
	}
	return data, true, nil
}

// readSized reads the file fd, of size bytes by fstat. It stops at size
// without reading again for the end: a regular file reads short only at
// its end. A file that ends early is read to its end; one that grew past
// size is not read here (ok false).
func readSized(fd int, size int64) (data []byte, ok bool, err error) {
	buf := make([]byte, size+1) // one byte more tells a file that grew
	n := 0
	for int64(n) < size {
		m, err := syscall.Read(fd, buf[n:])
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return nil, true, err
		case m == 0:
			return buf[:n], true, nil
		}
		n += m
	}
	if int64(n) > size {
		return nil, false, nil
	}
	return buf[:n], true, nil
}

package repofs

import (
	"bytes"
	"io/fs"
	"os"
)

// Given is f as an io/fs file system of paths the user named (a flag's
// file or folder), for libraries that read through one (OPA's loader of
// --data): inside a root, as the opener reads, elsewhere as named. Names
// are paths as the user wrote them, not fs.ValidPath names.
func (f *FS) Given() fs.FS { return given{f.orDefault()} }

type given struct{ f *FS }

func (g given) Open(name string) (fs.File, error) {
	info, err := g.Stat(name)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return &File{info: info}, nil
	}
	data, err := g.f.ReadGiven(name)
	if err != nil {
		return nil, err
	}
	return NewFile(data, info), nil
}

func (g given) Stat(name string) (fs.FileInfo, error) {
	if g.f.Inside(name) {
		return g.f.Stat(name)
	}
	return os.Stat(name)
}

func (g given) ReadDir(name string) ([]fs.DirEntry, error) {
	if g.f.Inside(name) {
		return g.f.ReadDir(name)
	}
	return os.ReadDir(name)
}

func (g given) ReadFile(name string) ([]byte, error) { return g.f.ReadGiven(name) }

// File is a file read whole through the opener (or a folder, which has
// nothing to read), for libraries that open files rather than read them.
type File struct {
	*bytes.Reader
	info fs.FileInfo
}

// NewFile is the file whose content is data and whose description is info.
func NewFile(data []byte, info fs.FileInfo) *File {
	return &File{Reader: bytes.NewReader(data), info: info}
}

func (m *File) Stat() (fs.FileInfo, error) { return m.info, nil }
func (m *File) Close() error               { return nil }

func (m *File) Read(p []byte) (int, error) {
	if m.Reader == nil {
		return 0, &fs.PathError{Op: "read", Path: m.info.Name(), Err: fs.ErrInvalid}
	}
	return m.Reader.Read(p)
}

package renderer

import (
	"bytes"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/drvcheck/drvcheck/internal/repofs"
)

// kustFS is kustomize's file system over the run's opener: what a
// kustomization names (resources, bases, components, patches, generator
// files, replacements, openapi schemas) is read only inside the
// repository, regular files only, within the limits, and nothing is
// written. kustomize reaches URLs through its own HTTP client, not
// through this; the sandbox refuses those (internal/sandbox).
type kustFS struct{ fsys *repofs.FS }

var errReadOnly = errors.New("drvcheck writes nothing while building")

func (k kustFS) Create(string) (filesys.File, error)  { return nil, errReadOnly }
func (k kustFS) Mkdir(string) error                   { return errReadOnly }
func (k kustFS) MkdirAll(string) error                { return errReadOnly }
func (k kustFS) RemoveAll(string) error               { return errReadOnly }
func (k kustFS) WriteFile(string, []byte) error       { return errReadOnly }
func (k kustFS) IsDir(path string) bool               { return k.fsys.IsDir(path) }
func (k kustFS) Exists(path string) bool              { _, err := k.fsys.Stat(path); return err == nil }
func (k kustFS) ReadFile(path string) ([]byte, error) { return originAsked(path, k.fsys.ReadFile) }

// Open reads the whole file, as kustomize's readers do anyway.
func (k kustFS) Open(path string) (filesys.File, error) {
	data, err := k.ReadFile(path)
	if err != nil {
		return nil, err
	}
	info, err := k.fsys.Stat(path)
	if err != nil {
		return nil, err
	}
	return memFile{repofs.NewFile(data, info)}, nil
}

func (k kustFS) ReadDir(path string) ([]string, error) {
	entries, err := k.fsys.ReadDir(path)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Name()
	}
	return out, nil
}

// CleanedAbs is kustomize's confirmed folder and file of path, every link
// resolved, as its on-disk file system gives them; a path out of the
// repository is an error instead.
func (k kustFS) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	real, err := k.fsys.Resolve(path)
	if err != nil {
		return "", "", err
	}
	if k.fsys.IsDir(real) {
		return filesys.ConfirmedDir(real), "", nil
	}
	return filesys.ConfirmedDir(filepath.Dir(real)), filepath.Base(real), nil
}

// Glob keeps the matches inside the repository.
func (k kustFS) Glob(pattern string) ([]string, error) {
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(matches, func(m string) bool { _, err := k.fsys.Resolve(m); return err != nil }), nil
}

// Walk visits path and what is below it inside the repository, links
// not followed, as filepath.Walk does.
func (k kustFS) Walk(path string, walkFn filepath.WalkFunc) error {
	info, err := k.fsys.Stat(path)
	if err != nil {
		return walkFn(path, nil, err)
	}
	return k.walk(path, info, walkFn)
}

func (k kustFS) walk(path string, info fs.FileInfo, walkFn filepath.WalkFunc) error {
	if err := walkFn(path, info, nil); err != nil || !info.IsDir() {
		if errors.Is(err, filepath.SkipDir) {
			return nil
		}
		return err
	}
	entries, err := k.fsys.ReadDir(path)
	if err != nil {
		return walkFn(path, info, err)
	}
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink != 0 {
			continue
		}
		child, err := e.Info()
		if err != nil {
			return err
		}
		if err := k.walk(filepath.Join(path, e.Name()), child, walkFn); err != nil {
			return err
		}
	}
	return nil
}

// memFile is a file kustomize reads: the opener's, never written.
type memFile struct{ *repofs.File }

func (memFile) Write([]byte) (int, error) { return 0, errReadOnly }

// originAsked reads path with read, and asks every kustomization it
// reads for origin annotations, so that each built resource names its
// file (kustomize's buildMetadata).
func originAsked(path string, read func(string) ([]byte, error)) ([]byte, error) {
	data, err := read(path)
	if err != nil || !slices.Contains(kustomizationNames, filepath.Base(path)) || bytes.Contains(data, []byte("buildMetadata")) {
		return data, err
	}
	return append(append(data, '\n'), "buildMetadata: [originAnnotations]\n"...), nil
}

var _ filesys.FileSystem = kustFS{}

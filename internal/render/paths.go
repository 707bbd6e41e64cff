package render

import (
	"net/url"
	"path/filepath"
	"strings"

	"github.com/drvcheck/drvcheck/internal/repofs"
)

// RepoRoot returns the root of the git repository that holds dir (the
// nearest folder upward with a .git entry, a folder or a worktree's file),
// or dir itself outside a repository. It reads no git metadata, so it works
// without git installed and inside a container.
func RepoRoot(dir string) string { return repofs.RepoRoot(dir) }

// relPath returns file relative to the repository root, with forward
// slashes, and whether it is inside the root. Standard input ("-") and
// empty names are returned as they are, outside.
func (o Options) relPath(file string) (string, bool) {
	if file == "" || file == "-" || o.Root == "" {
		return filepath.ToSlash(file), false
	}
	abs := file
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(o.Dir, file)
	}
	rel, err := filepath.Rel(o.Root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(abs), false
	}
	return filepath.ToSlash(rel), true
}

// displayPath is the path people read: relative to the root when inside it,
// else as given.
func (o Options) displayPath(file string) string {
	if rel, inside := o.relPath(file); inside {
		return rel
	}
	return filepath.ToSlash(file)
}

// fileURI returns a URI for file: relative to the root (inside it) or an
// absolute file: URI, and whether it is relative.
func (o Options) fileURI(file string) (string, bool) {
	p, inside := o.relPath(file)
	if inside {
		return (&url.URL{Path: p}).String(), true
	}
	if !filepath.IsAbs(file) && o.Dir != "" {
		file = filepath.Join(o.Dir, file)
	}
	return absURI(file), false
}

// absURI returns the file: URI of path, made absolute.
func absURI(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive: file:///C:/...
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/drvcheck/drvcheck/internal/repofs"
)

// renderMarks are the files that make a folder render as one: a Helm
// chart, a kustomization.
var renderMarks = []string{"Chart.yaml", "kustomization.yaml", "kustomization.yml", "Kustomization"}

// renderRoots replaces each file that lies inside a chart or a
// kustomization by the nearest such folder above it, within the file's
// repository, so that a staged values.yaml or template is checked as what
// it renders into; other paths stay. A folder named twice is checked once.
func renderRoots(paths []string) []string {
	var out []string
	for _, p := range paths {
		if root := renderRoot(p); root != "" {
			p = root
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	// A file given beside the folder now checked holds nothing new.
	return slices.DeleteFunc(out, func(p string) bool {
		return slices.ContainsFunc(out, func(dir string) bool { return dir != p && within(p, dir) })
	})
}

// renderRoot is the nearest chart or kustomization folder above the file
// p, or "" (p is a folder, standard input, or in neither).
func renderRoot(p string) string {
	info, err := os.Stat(p)
	if p == "-" || err != nil || info.IsDir() {
		return ""
	}
	stop := repofs.RepoRoot(filepath.Dir(p))
	abs, err := filepath.Abs(filepath.Dir(p))
	if err != nil {
		return ""
	}
	for dir := abs; within(dir, stop); dir = filepath.Dir(dir) {
		for _, m := range renderMarks {
			if info, err := os.Lstat(filepath.Join(dir, m)); err == nil && info.Mode().IsRegular() {
				return relativeLike(p, dir)
			}
		}
		if dir == stop || filepath.Dir(dir) == dir {
			break
		}
	}
	return ""
}

// within says whether path is dir or inside it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// relativeLike writes dir relative to the working folder when p was
// relative, so that messages keep the user's paths.
func relativeLike(p, dir string) string {
	if filepath.IsAbs(p) {
		return dir
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, dir); err == nil {
			return rel
		}
	}
	return dir
}

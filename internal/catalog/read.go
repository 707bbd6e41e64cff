package catalog

import (
	"context"

	"github.com/drvcheck/drvcheck/internal/imageref"
	"github.com/drvcheck/drvcheck/internal/registry"
	"github.com/drvcheck/drvcheck/internal/repofs"
)

// Sources are where the tags that exist are listed.
type Sources struct {
	Matrix   []string // support-matrix CSV files (--matrix)
	Registry []string // image repositories (--registry)
	// RegistryOptions say how the repositories are reached and cached.
	RegistryOptions registry.Options
	// FS reads the matrix files (internal/repofs); nil reads them as named.
	FS *repofs.FS
}

// Read reads every source into one catalog: each matrix file, then each
// registry repository, listed once and in parallel. A source that cannot
// be read fails the whole catalog: a tag is never MISSING because its
// source was unreachable.
func Read(ctx context.Context, src Sources) (*Catalog, error) {
	cat, err := Matrices(src)
	if err != nil {
		return nil, err
	}
	return cat, AddRegistries(ctx, cat, src)
}

// Matrices reads the matrix files alone into a new catalog. They depend on
// nothing else a run reads, so a run reads them first: a matrix that is
// missing or malformed fails before a fleet of thousands of objects is
// read.
func Matrices(src Sources) (*Catalog, error) {
	cat := New()
	for _, path := range src.Matrix {
		rows, err := ReadMatrix(src.FS, path)
		if err != nil {
			return nil, err
		}
		if len(rows) > 0 && rows[0].Ref.Repository != "" {
			refs := make([]imageref.Ref, len(rows))
			for i, r := range rows {
				refs[i] = r.Ref
			}
			cat.AddImages(path, refs)
			continue
		}
		tags := make([]string, len(rows))
		for i, r := range rows {
			tags[i] = r.Tag()
		}
		cat.Add(path, tags)
		cat.addArches(path, rows)
	}
	return cat, nil
}

// AddRegistries lists every registry repository of src into cat.
func AddRegistries(ctx context.Context, cat *Catalog, src Sources) error {
	if len(src.Registry) == 0 {
		return nil
	}
	lister, err := registry.New(src.RegistryOptions)
	if err != nil {
		return err
	}
	listings, err := lister.List(ctx, src.Registry)
	if err != nil {
		return err
	}
	for _, l := range listings {
		if l.Cached {
			cat.AddCached(l.Repository, l.Repository, l.Tags, l.Fetched)
			continue
		}
		cat.AddRepository(l.Repository, l.Repository, l.Tags)
	}
	return nil
}

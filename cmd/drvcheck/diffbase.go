package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/drvcheck/drvcheck/internal/baseline"
	"github.com/drvcheck/drvcheck/internal/gitbase"
	"github.com/drvcheck/drvcheck/internal/runner"
)

// diffBaseline runs the same check on the merge base of ref and HEAD: the
// files of the paths, as the merge base has them, are written to a
// temporary folder at the same places (internal/gitbase), and checked
// there. A path the merge base lacks (added by the change) is left out of
// that run. Its findings are the baseline.
func diffBaseline(ctx context.Context, ref string, paths []string, limit int64, run func([]string) (*runner.Result, error)) (*baseline.Baseline, error) {
	repo, err := gitbase.Open()
	if err != nil {
		return nil, fmt.Errorf("--diff-base %s: %w", ref, err)
	}
	defer repo.Close()
	commit, err := repo.MergeBase(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("--diff-base %s: %w", ref, err)
	}
	tmp, err := os.MkdirTemp("", "drvcheck-base-")
	if err != nil {
		return nil, fmt.Errorf("--diff-base: %w", err)
	}
	defer os.RemoveAll(tmp)
	// The copy is a repository of its own for drvcheck's reads (repofs).
	if err := os.Mkdir(filepath.Join(tmp, ".git"), 0o700); err != nil {
		return nil, fmt.Errorf("--diff-base: %w", err)
	}
	rels := make([]string, len(paths))
	for i, p := range paths {
		if rels[i], err = repo.Within(p); err != nil {
			return nil, fmt.Errorf("--diff-base %s: %w", ref, err)
		}
	}
	if err := repo.Export(ctx, commit, rels, tmp, limit); err != nil {
		return nil, fmt.Errorf("--diff-base %s: %w", ref, err)
	}
	var base []string
	for _, rel := range rels {
		if _, err := os.Lstat(filepath.Join(tmp, rel)); err == nil {
			base = append(base, filepath.Join(tmp, rel))
		}
	}
	name := "the merge base " + short(commit) + " of " + ref
	if len(base) == 0 {
		return baseline.Of(nil, name), nil
	}
	res, err := run(base)
	if err != nil {
		return nil, fmt.Errorf("--diff-base %s: the check of %s: %w", ref, name, err)
	}
	return baseline.Of(res.Findings, name), nil
}

func short(commit string) string { return commit[:min(12, len(commit))] }

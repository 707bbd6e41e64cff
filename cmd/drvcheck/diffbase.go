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
	repo, err := gitbase.Open(paths[0])
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
		if rels[i], err = inTree(p, repo.Root); err != nil {
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

// inTree is path relative to the work tree at root, which it must be in,
// as written and once links are followed.
func inTree(path, root string) (string, error) {
	if path == "-" {
		return "", fmt.Errorf("standard input has no merge base")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return "", fmt.Errorf("%s is outside the git work tree %s", path, root)
	}
	realRoot, err1 := filepath.EvalSymlinks(root)
	realPath, err2 := filepath.EvalSymlinks(abs)
	if err1 == nil && err2 == nil {
		if r, err := filepath.Rel(realRoot, realPath); err != nil || !filepath.IsLocal(r) && r != "." {
			return "", fmt.Errorf("%s leads out of the git work tree %s", path, root)
		}
	}
	return rel, nil
}

func short(commit string) string { return commit[:min(12, len(commit))] }

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/drvcheck/drvcheck/internal/baseline"
	"github.com/drvcheck/drvcheck/internal/gitbase"
	"github.com/drvcheck/drvcheck/internal/runner"
)

// diffBaseline runs the same check on the merge base of ref and HEAD: the
// git work tree that holds the first path is written, as the merge base
// has it, to a temporary folder, and each path is checked there at the
// same place. A path the merge base lacks (added by the change) is left
// out of that run. Its findings are the baseline.
func diffBaseline(ctx context.Context, ref string, paths []string, limit int64, run func([]string) (*runner.Result, error)) (*baseline.Baseline, error) {
	first, err := filepath.Abs(paths[0])
	if err != nil {
		return nil, fmt.Errorf("--diff-base: %w", err)
	}
	dir := first
	if info, err := os.Stat(first); err != nil || !info.IsDir() {
		dir = filepath.Dir(first)
	}
	root, err := gitbase.Root(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("--diff-base %s: %w", ref, err)
	}
	commit, err := gitbase.MergeBase(ctx, root, ref)
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
	if err := gitbase.Export(ctx, root, commit, tmp, limit); err != nil {
		return nil, fmt.Errorf("--diff-base %s: %w", ref, err)
	}
	var base []string
	for _, p := range paths {
		mapped, err := underBase(p, root, tmp)
		if err != nil {
			return nil, fmt.Errorf("--diff-base %s: %w", ref, err)
		}
		if _, err := os.Lstat(mapped); err == nil {
			base = append(base, mapped)
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

// underBase is where path (in the work tree at root) is in the copy at tmp.
func underBase(path, root, tmp string) (string, error) {
	if path == "-" {
		return "", fmt.Errorf("standard input has no merge base")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the git work tree %s", path, root)
	}
	return filepath.Join(tmp, rel), nil
}

func short(commit string) string { return commit[:min(12, len(commit))] }

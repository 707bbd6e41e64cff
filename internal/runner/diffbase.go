package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/drvcheck/drvcheck/internal/baseline"
	"github.com/drvcheck/drvcheck/internal/gitbase"
)

// DiffBaseline runs the same check on the merge base of ref and HEAD: the
// files of the paths, as the merge base has them, are written to a
// temporary folder at the same places (internal/gitbase), and checked
// there. A path the merge base lacks (added by the change) is left out of
// that run. Its findings are the baseline.
func DiffBaseline(ctx context.Context, ref string, paths []string, limit int64, run func([]string) (*Result, error)) (*baseline.Baseline, error) {
	base, err := ExportBase(ctx, ref, paths, "", limit)
	if err != nil {
		return nil, err
	}
	defer base.Cleanup()
	if len(base.Paths) == 0 {
		return baseline.Of(nil, base.Name), nil
	}
	res, err := run(base.Paths)
	if err != nil {
		return nil, fmt.Errorf("--diff-base %s: the check of %s: %w", ref, base.Name, err)
	}
	return baseline.Of(res.Findings, base.Name), nil
}

// ExportBase writes the paths, and the values file when one is given, as
// the merge base of ref and HEAD has them to a temporary folder
// (internal/gitbase), as check --diff-base does: the base side reads its
// own values, never the working tree's. Its Cleanup removes the folder.
func ExportBase(ctx context.Context, ref string, paths []string, values string, limit int64) (Side, error) {
	repo, err := gitbase.Open()
	if err != nil {
		return Side{}, fmt.Errorf("--diff-base %s: %w", ref, err)
	}
	defer repo.Close()
	commit, err := repo.MergeBase(ctx, ref)
	if err != nil {
		return Side{}, fmt.Errorf("--diff-base %s: %w", ref, err)
	}
	tmp, err := os.MkdirTemp("", "drvcheck-base-")
	if err != nil {
		return Side{}, fmt.Errorf("--diff-base: %w", err)
	}
	s := Side{Name: "the merge base " + short(commit) + " of " + ref, Cleanup: func() { os.RemoveAll(tmp) }}
	fail := func(err error) (Side, error) {
		s.Cleanup()
		return Side{}, err
	}
	if err := os.Mkdir(filepath.Join(tmp, ".git"), 0o700); err != nil {
		return fail(fmt.Errorf("--diff-base: %w", err))
	}
	rels := make([]string, len(paths))
	for i, p := range paths {
		if rels[i], err = repo.Within(p); err != nil {
			return fail(fmt.Errorf("--diff-base %s: %w", ref, err))
		}
	}
	valuesRel := ""
	if values != "" {
		if valuesRel, err = repo.Within(values); err != nil {
			return fail(fmt.Errorf("--diff-base %s: --operator-values: %w", ref, err))
		}
		rels = append(rels, valuesRel)
	}
	if err := repo.Export(ctx, commit, rels, tmp, limit); err != nil {
		return fail(fmt.Errorf("--diff-base %s: %w", ref, err))
	}
	for _, rel := range rels {
		if _, err := os.Lstat(filepath.Join(tmp, rel)); err == nil && rel != valuesRel {
			s.Paths = append(s.Paths, filepath.Join(tmp, rel))
		}
	}
	if _, err := os.Lstat(filepath.Join(tmp, valuesRel)); valuesRel != "" && err == nil {
		s.Values = filepath.Join(tmp, valuesRel)
	}
	return s, nil
}

func short(commit string) string { return commit[:min(12, len(commit))] }

// Package gitbase writes files of a pull request's merge base to a
// temporary folder, so that the same check can run on the code before the
// change (check --diff-base). A pull request is hostile input, so:
//   - the repository is the work tree of the working folder, and git is
//     told it (--git-dir, --work-tree): files of the pull request that look
//     like a repository are never taken for one, bare repositories are
//     refused, and a path that leads out of the work tree or into a
//     repository nested in it (a submodule) is an error;
//   - git reads objects only (ls-tree, cat-file): no attribute, filter or
//     hook applies, no network is reached (protocol.allow=never, no lazy
//     fetch of a partial clone), and no user or system config is read;
//   - the files are written by this package through an os.Root, within a
//     size bound.
package gitbase

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Repo is a git work tree and its .git.
type Repo struct {
	Root string
	home string // an empty HOME for git: no user config, no attributes
}

// Open is the work tree that holds the working folder (not a path a
// pull request controls): the nearest folder upward, links followed, with
// a .git. The paths checked must be in it (Within).
func Open() (*Repo, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(wd)
	if err != nil {
		return nil, err
	}
	for d := real; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			home, err := os.MkdirTemp("", "drvcheck-git-home-")
			if err != nil {
				return nil, err
			}
			return &Repo{Root: d, home: home}, nil
		}
		if filepath.Dir(d) == d {
			return nil, fmt.Errorf("the working folder %s is not in a git work tree (run drvcheck from inside the repository)", wd)
		}
	}
}

// Within is path relative to the work tree: its real location, every
// link followed, must be inside the work tree and in no repository nested
// in it (a submodule, which a pull request may add, has its own history).
func (r *Repo) Within(path string) (string, error) {
	if path == "-" {
		return "", errors.New("standard input has no merge base")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(r.Root, real)
	if err != nil || rel != "." && !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s leads out of the git work tree %s", path, r.Root)
	}
	for d := real; d != r.Root; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return "", fmt.Errorf("%s is in a repository of its own (%s, a submodule?), not in the history of %s", path, d, r.Root)
		}
	}
	return rel, nil
}

// Close removes the empty HOME made for git.
func (r *Repo) Close() error { return os.RemoveAll(r.home) }

// git runs git on the repository with a bare environment.
func (r *Repo) git(ctx context.Context, stdin io.Reader, stdout io.Writer, args ...string) error {
	base := []string{
		"--git-dir=" + filepath.Join(r.Root, ".git"), "--work-tree=" + r.Root,
		"-c", "safe.bareRepository=explicit", "-c", "protocol.allow=never", "-c", "core.fsmonitor=false",
		"-c", "core.hooksPath=/dev/null", "-c", "core.attributesFile=/dev/null",
	}
	cmd := exec.CommandContext(ctx, "git", append(base, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + r.home, "XDG_CONFIG_HOME=" + r.home,
		"GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_ATTR_NOSYSTEM=1",
		"GIT_NO_LAZY_FETCH=1", "GIT_NO_REPLACE_OBJECTS=1", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat", "LC_ALL=C"}
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return errors.New(gitMessage(stderr.String(), err))
	}
	return nil
}

// gitMessage is the line of git's stderr that says why it stopped: its
// last fatal or error line, else its first.
func gitMessage(stderr string, err error) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "fatal: ") || strings.HasPrefix(lines[i], "error: ") {
			return lines[i]
		}
	}
	if lines[0] != "" {
		return lines[0]
	}
	return err.Error()
}

// MergeBase is the commit where HEAD left ref, as a pull request's diff
// is taken.
func (r *Repo) MergeBase(ctx context.Context, ref string) (string, error) {
	if strings.HasPrefix(ref, "-") {
		return "", fmt.Errorf("%q is not a revision", ref)
	}
	var out bytes.Buffer
	if err := r.git(ctx, nil, &out, "merge-base", "--end-of-options", ref, "HEAD"); err != nil {
		return "", fmt.Errorf("no merge base of %s and HEAD in %s (is %s fetched, with enough history?): %s", ref, r.Root, ref, err)
	}
	return strings.TrimSpace(out.String()), nil
}

// entry is a file of a tree: its git mode, object and path.
type entry struct {
	mode, object, path string
}

// Export writes the files of commit under the paths (relative to the work
// tree, "." for all) to dest, at most limit bytes of them.
func (r *Repo) Export(ctx context.Context, commit string, paths []string, dest string, limit int64) error {
	entries, err := r.files(ctx, commit, paths)
	if err != nil {
		return fmt.Errorf("the tree of %s: %w", commit, err)
	}
	if err := r.write(ctx, entries, dest, limit); err != nil {
		return fmt.Errorf("the tree of %s: %w", commit, err)
	}
	return nil
}

// files lists the blobs of commit under paths (ls-tree reads no file and
// applies no attribute). A submodule is left out.
func (r *Repo) files(ctx context.Context, commit string, paths []string) ([]entry, error) {
	args := []string{"ls-tree", "-r", "-z", "--full-tree", "--end-of-options", commit, "--"}
	for _, p := range paths {
		args = append(args, ":(literal)"+filepath.ToSlash(p))
	}
	var out bytes.Buffer
	if err := r.git(ctx, nil, &out, args...); err != nil {
		return nil, err
	}
	var list []entry
	for _, rec := range strings.Split(strings.TrimSuffix(out.String(), "\x00"), "\x00") {
		if rec == "" {
			continue
		}
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("ls-tree said %q", rec)
		}
		if f[1] == "blob" {
			list = append(list, entry{mode: f[0], object: f[2], path: path})
		}
	}
	return list, nil
}

// write reads the entries' objects with one cat-file --batch and writes
// them under dest through an os.Root: no entry, and no link written
// before it, can write outside dest. A link is written as it is, and
// drvcheck's reads refuse one that leads out of the repository.
func (r *Repo) write(ctx context.Context, entries []entry, dest string, limit int64) error {
	root, err := os.OpenRoot(dest)
	if err != nil {
		return err
	}
	defer root.Close()
	var ids bytes.Buffer
	for _, e := range entries {
		ids.WriteString(e.object + "\n")
	}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := r.git(ctx, &ids, pw, "cat-file", "--batch")
		pw.CloseWithError(err)
		done <- err
	}()
	err = writeObjects(bufio.NewReader(pr), root, entries, limit)
	if err == nil {
		_, err = io.Copy(io.Discard, pr)
	}
	pr.CloseWithError(errors.New("stopped reading"))
	if gerr := <-done; err == nil && gerr != nil {
		err = gerr
	}
	return err
}

// writeObjects reads cat-file --batch's answers, in the entries' order.
func writeObjects(br *bufio.Reader, root *os.Root, entries []entry, limit int64) error {
	var total int64
	for _, e := range entries {
		header, err := br.ReadString('\n')
		if err != nil {
			return err
		}
		f := strings.Fields(header)
		if len(f) == 2 && f[1] == "missing" {
			return fmt.Errorf("object %s of %s is not in the repository (a partial or shallow clone?); nothing is fetched", e.object, e.path)
		}
		if len(f) != 3 || f[1] != "blob" {
			return fmt.Errorf("cat-file said %q for %s", strings.TrimSpace(header), e.path)
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size < 0 {
			return fmt.Errorf("cat-file said %q for %s", strings.TrimSpace(header), e.path)
		}
		if total += size; total > limit {
			return fmt.Errorf("larger than --max-input-size (%d bytes)", limit)
		}
		if err := writeEntry(root, e, io.LimitReader(br, size), size); err != nil {
			return fmt.Errorf("%s: %w", e.path, err)
		}
		if _, err := br.Discard(1); err != nil { // the newline after the object
			return err
		}
	}
	return nil
}

// writeEntry writes one blob: a link (mode 120000) or a regular file.
func writeEntry(root *os.Root, e entry, r io.Reader, size int64) error {
	name := filepath.FromSlash(e.path)
	if err := root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	if e.mode == "120000" {
		target, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		return root.Symlink(string(target), name)
	}
	f, err := root.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = io.CopyN(f, r, size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

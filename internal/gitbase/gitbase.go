// Package gitbase writes the tree of a pull request's merge base to a
// temporary folder, so that the same check can run on the code before the
// change (check --diff-base). It asks git only for local objects: nothing
// is fetched, no hook or filter runs, and the tree is written by this
// package, entry by entry, inside the folder and within a size bound.
package gitbase

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// git runs git in dir with a bare environment: no prompt, no pager, no
// system or global config, no optional locks.
func git(ctx context.Context, dir string, stdout io.Writer, args ...string) error {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "-c", "core.fsmonitor=false"}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat", "LC_ALL=C"}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg == "" {
			msg = err.Error()
		}
		return errors.New(msg)
	}
	return nil
}

// Root is the top folder of the work tree that holds dir.
func Root(ctx context.Context, dir string) (string, error) {
	var out bytes.Buffer
	if err := git(ctx, dir, &out, "rev-parse", "--show-toplevel"); err != nil {
		return "", fmt.Errorf("%s is not in a git work tree: %s", dir, err)
	}
	return strings.TrimSpace(out.String()), nil
}

// MergeBase is the commit where HEAD left ref, as a pull request's diff
// is taken.
func MergeBase(ctx context.Context, root, ref string) (string, error) {
	if strings.HasPrefix(ref, "-") {
		return "", fmt.Errorf("%q is not a revision", ref)
	}
	var out bytes.Buffer
	if err := git(ctx, root, &out, "merge-base", "--end-of-options", ref, "HEAD"); err != nil {
		return "", fmt.Errorf("no merge base of %s and HEAD in %s (is %s fetched, with enough history?): %s", ref, root, ref, err)
	}
	return strings.TrimSpace(out.String()), nil
}

// Export writes commit's tree under dest, at most limit bytes of files.
func Export(ctx context.Context, root, commit, dest string, limit int64) error {
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := git(ctx, root, w, "archive", "--format=tar", commit)
		w.CloseWithError(err)
		done <- err
	}()
	err := untar(r, dest, limit)
	if err == nil {
		_, err = io.Copy(io.Discard, r) // the archive's padding after its end
	}
	r.CloseWithError(errors.New("stopped reading"))
	if gerr := <-done; err == nil && gerr != nil {
		err = gerr
	}
	if err != nil {
		return fmt.Errorf("the tree of %s: %w", commit, err)
	}
	return nil
}

// untar writes the folders, regular files and symbolic links of a tar
// stream under dest, through an os.Root: no entry, and no link an entry
// goes through, can write outside it. A link is written as it is, and
// drvcheck's reads refuse one that leads out of the repository, as they
// do in the work tree.
func untar(r io.Reader, dest string, limit int64) error {
	root, err := os.OpenRoot(dest)
	if err != nil {
		return err
	}
	defer root.Close()
	tr := tar.NewReader(r)
	var total int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.FromSlash(strings.TrimSuffix(h.Name, "/"))
		switch h.Typeflag {
		case tar.TypeDir:
			err = root.MkdirAll(name, 0o755)
		case tar.TypeReg:
			if total += h.Size; total > limit {
				return fmt.Errorf("larger than --max-input-size (%d bytes)", limit)
			}
			err = writeFile(root, name, tr, h.Size)
		case tar.TypeSymlink:
			if err = root.MkdirAll(filepath.Dir(name), 0o755); err == nil {
				err = root.Symlink(h.Linkname, name)
			}
		}
		if err != nil {
			return fmt.Errorf("entry %q: %w", h.Name, err)
		}
	}
}

func writeFile(root *os.Root, name string, r io.Reader, size int64) error {
	if err := root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
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

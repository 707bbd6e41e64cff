package gitbase

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// hostileRepo is a repository whose own config and attributes would run a
// filter on checkout or archive, with a link out of it, committed on main.
func hostileRepo(t *testing.T, marker string) string {
	t.Helper()
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	write(t, filepath.Join(dir, "k8s", "a.yaml"), "kind: Namespace\n")
	write(t, filepath.Join(dir, "k8s", ".gitattributes"), "* filter=evil\n")
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "k8s", "out.yaml")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "other", "b.yaml"), "kind: Namespace\n")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "base")
	gitIn(t, dir, "config", "filter.evil.smudge", "sh -c 'touch "+marker+"; cat'")
	gitIn(t, dir, "config", "filter.evil.clean", "sh -c 'touch "+marker+"; cat'")
	return dir
}

// Export writes the paths' files as the commit holds them: no filter of
// the repository's config runs, a link is written as a link, and other
// paths are left out.
func TestExportRunsNothingOfTheRepository(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "pwned")
	dir := hostileRepo(t, marker)
	t.Chdir(filepath.Join(dir, "k8s"))
	r, err := Open()
	if err != nil || r.Root != dir {
		t.Fatalf("Open: %v %+v", err, r)
	}
	defer r.Close()
	commit, err := r.MergeBase(t.Context(), "main")
	if err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	if err := r.Export(t.Context(), commit, []string{"k8s"}, dest, 1<<20); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the repository's filter ran")
	}
	if data, err := os.ReadFile(filepath.Join(dest, "k8s", "a.yaml")); err != nil || string(data) != "kind: Namespace\n" {
		t.Errorf("a.yaml: %v %q", err, data)
	}
	if target, err := os.Readlink(filepath.Join(dest, "k8s", "out.yaml")); err != nil || target != "/etc/passwd" {
		t.Errorf("out.yaml: %v %q", err, target)
	}
	if _, err := os.Stat(filepath.Join(dest, "other")); err == nil {
		t.Error("a path not asked for was written")
	}
	if err := r.Export(t.Context(), commit, []string{"."}, t.TempDir(), 10); err == nil || !strings.Contains(err.Error(), "larger than --max-input-size") {
		t.Errorf("size bound: %v", err)
	}
}

// A path that leads to another repository (a link, at the end of the path
// or above it), or into a repository nested in the work tree (a
// submodule), or files of the pull request laid out as a bare repository,
// are never taken for the repository's history. The working folder may be
// reached through a link of the user's.
func TestWithinKeepsToTheWorkTree(t *testing.T) {
	outer := t.TempDir()
	gitIn(t, outer, "init", "-q", "-b", "main")
	other := t.TempDir()
	gitIn(t, other, "init", "-q", "-b", "main")
	write(t, filepath.Join(other, "prod", "x.yaml"), "kind: Namespace\n")
	if err := os.Symlink(other, filepath.Join(outer, "deploy")); err != nil {
		t.Fatal(err)
	}
	gitIn(t, outer, "init", "-q", "-b", "main", "sub")
	write(t, filepath.Join(outer, "sub", "y.yaml"), "kind: Namespace\n")
	gitIn(t, outer, "init", "-q", "--bare", filepath.Join(outer, "embedded"))
	link := filepath.Join(t.TempDir(), "repo")
	if err := os.Symlink(outer, link); err != nil {
		t.Fatal(err)
	}
	t.Chdir(link)
	r, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if real, _ := filepath.EvalSymlinks(outer); r.Root != real {
		t.Fatalf("root %s, want %s", r.Root, real)
	}
	for path, want := range map[string]string{
		"deploy":             "leads out of the git work tree",
		"deploy/prod/x.yaml": "leads out of the git work tree",
		"sub/y.yaml":         "is in a repository of its own",
		"embedded":           "",
		".":                  "",
	} {
		_, err := r.Within(path)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("Within(%s): %v, want %q", path, err, want)
		}
	}
	t.Chdir(t.TempDir())
	if _, err := Open(); err == nil || !strings.Contains(err.Error(), "is not in a git work tree") {
		t.Errorf("no repository: %v", err)
	}
}

func TestMergeBaseRefusesAnOption(t *testing.T) {
	r := &Repo{Root: t.TempDir(), home: t.TempDir()}
	if _, err := r.MergeBase(t.Context(), "--output=/tmp/x"); err == nil || !strings.Contains(err.Error(), "is not a revision") {
		t.Fatalf("an option taken for a revision: %v", err)
	}
}

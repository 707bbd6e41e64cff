package repofs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tree makes a repository and, beside it, a folder of secrets it must
// never read: the shape of a CI runner's workspace and home.
func tree(t *testing.T) (repo, secret string) {
	t.Helper()
	base := t.TempDir()
	repo, home := filepath.Join(base, "repo"), filepath.Join(base, "home")
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(repo, "charts", "c"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret = filepath.Join(home, "credentials")
	write(t, secret, "CANARY-SECRET")
	write(t, filepath.Join(repo, "charts", "c", "values.yaml"), "a: 1\n")
	return repo, secret
}

// linkedTree is tree with three links in its chart: to the secret, to
// the secret's folder, and to a file beside it.
func linkedTree(t *testing.T) (repo, chart, secret string) {
	t.Helper()
	repo, secret = tree(t)
	chart = filepath.Join(repo, "charts", "c")
	link(t, secret, filepath.Join(chart, "creds.yaml"))
	link(t, filepath.Dir(secret), filepath.Join(chart, "home"))
	link(t, "values.yaml", filepath.Join(chart, "same.yaml"))
	return repo, chart, secret
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

func newFS(t *testing.T, lim Limits, paths ...string) *FS {
	t.Helper()
	f, err := New(RootsOf(paths...), lim)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Whatever way a repository's path leads out of it (a link to a file, a
// link to a folder on the way, a relative path up, an absolute path), the
// opener refuses it and never returns the content; a link that stays
// inside is followed.
func TestNothingOutsideTheRepositoryIsRead(t *testing.T) {
	repo, chart, secret := linkedTree(t)
	f := newFS(t, Limits{}, filepath.Join(repo, "charts"))

	for _, p := range []string{
		filepath.Join(chart, "creds.yaml"),
		filepath.Join(chart, "home", "credentials"),
		filepath.Join(chart, "..", "..", "..", "home", "credentials"),
		secret,
	} {
		data, err := f.ReadFile(p)
		if err == nil || !errors.Is(err, ErrOutside) || strings.Contains(err.Error(), "CANARY") || len(data) > 0 {
			t.Errorf("%s: %q, %v; want refused as outside", p, data, err)
		}
		if _, err := f.Stat(p); !errors.Is(err, ErrOutside) {
			t.Errorf("Stat %s: %v", p, err)
		}
	}
	if data, err := f.ReadFile(filepath.Join(chart, "same.yaml")); err != nil || string(data) != "a: 1\n" {
		t.Errorf("a link inside: %q %v", data, err)
	}
}

// A path the user named outside every repository is the user's own and is
// read; inside one, the repository decides what it is, so it is confined.
func TestGivenPaths(t *testing.T) {
	repo, secret := tree(t)
	f := newFS(t, Limits{}, repo)
	if data, err := f.ReadGiven(secret); err != nil || string(data) != "CANARY-SECRET" {
		t.Errorf("a flag's file outside the repository: %q %v", data, err)
	}
	link(t, secret, filepath.Join(repo, "values.yaml"))
	if _, err := f.ReadGiven(filepath.Join(repo, "values.yaml")); !errors.Is(err, ErrOutside) {
		t.Errorf("a flag's file inside the repository linked out: %v", err)
	}
	var nilFS *FS
	if data, err := nilFS.ReadGiven(secret); err != nil || len(data) == 0 {
		t.Errorf("no opener reads given paths as named: %v", err)
	}
	// A file named outside every repository is read as named even where
	// its folder is a root (a walk's bound): /dev/fd/63 of a process
	// substitution was refused as "no such file", /dev/stdin as a link
	// out of /dev.
	outside := filepath.Join(filepath.Dir(secret), "linked.yaml")
	link(t, secret, outside)
	g := newFS(t, Limits{}, outside)
	if data, err := g.ReadGiven(outside); err != nil || string(data) != "CANARY-SECRET" {
		t.Errorf("a link the user named outside every repository: %q %v", data, err)
	}
	var streamed []byte
	err := g.StreamGiven(outside, func(r io.Reader) (err error) { streamed, err = io.ReadAll(r); return err })
	if err != nil || string(streamed) != "CANARY-SECRET" {
		t.Errorf("streamed: %q %v", streamed, err)
	}
	if err := f.StreamGiven(filepath.Join(repo, "values.yaml"), func(io.Reader) error { return nil }); !errors.Is(err, ErrOutside) {
		t.Errorf("streamed inside the repository linked out: %v", err)
	}
	small := newFS(t, Limits{File: 5}, outside)
	if err := small.StreamGiven(outside, func(r io.Reader) error { _, err := io.ReadAll(r); return err }); err == nil || !strings.Contains(err.Error(), "--max-file-size") {
		t.Errorf("a stream past the limit: %v", err)
	}
}

// A pipe no one closes ends at the run's deadline, naming it.
func TestStreamsEndAtTheDeadline(t *testing.T) {
	rd, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer wr.Close()
	f, err := New(nil, Limits{Until: time.Now().Add(200 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadStream("-", rd); err == nil || !strings.Contains(err.Error(), "-: not read to its end by the run's deadline (--timeout)") {
		t.Errorf("%v", err)
	}
}

// Only regular files are read: a named pipe without a writer would hang,
// and a device is endless. Neither blocks.
func TestOnlyRegularFiles(t *testing.T) {
	repo, _ := tree(t)
	fifo := filepath.Join(repo, "pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	link(t, "/dev/zero", filepath.Join(repo, "zero.yaml"))
	f := newFS(t, Limits{}, repo)
	done := make(chan error, 1)
	go func() {
		_, err := f.ReadFile(fifo)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file (a named pipe)") {
			t.Errorf("fifo: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a named pipe hangs")
	}
	if _, err := f.ReadFile(filepath.Join(repo, "zero.yaml")); err == nil {
		t.Error("a link to /dev/zero was read")
	}
}

// Every byte counts: one input past --max-file-size, all of them past
// --max-input-size, and what a render made (Count) too.
func TestLimits(t *testing.T) {
	repo, _ := tree(t)
	write(t, filepath.Join(repo, "big.yaml"), strings.Repeat("x", 2000))
	f := newFS(t, Limits{File: 1000, Total: 5000}, repo)
	if _, err := f.ReadFile(filepath.Join(repo, "big.yaml")); err == nil || !strings.Contains(err.Error(), "--max-file-size") {
		t.Errorf("one input: %v", err)
	}
	if _, err := f.Read("stdin", strings.NewReader(strings.Repeat("y", 900))); err != nil {
		t.Fatal(err)
	}
	if err := f.Count("chart/Chart.yaml", 900); err != nil {
		t.Fatal(err)
	}
	err := f.Count("chart/Chart.yaml", 999)
	for err == nil {
		err = f.Count("chart/Chart.yaml", 999)
	}
	if !strings.Contains(err.Error(), "chart/Chart.yaml: the inputs are larger than") || !strings.Contains(err.Error(), "--max-input-size") {
		t.Errorf("the total: %v", err)
	}
}

// A repository's root is the nearest folder upward with .git; outside any,
// the folder named, or the folder of the file named.
func TestRootsOf(t *testing.T) {
	repo, secret := tree(t)
	got := RootsOf(filepath.Join(repo, "charts", "c"), "-", secret, filepath.Join(repo, "charts"))
	if len(got) != 2 || got[0] != repo || got[1] != filepath.Dir(secret) {
		t.Errorf("roots %v", got)
	}
}

// The opener as an io/fs file system reads what ReadGiven reads, and
// refuses what it refuses.
func TestGivenFS(t *testing.T) {
	repo, secret := tree(t)
	link(t, secret, filepath.Join(repo, "data.json"))
	g := newFS(t, Limits{}, repo).Given()
	if _, err := fs.ReadFile(g, filepath.Join(repo, "data.json")); !errors.Is(err, ErrOutside) {
		t.Errorf("a linked data file: %v", err)
	}
	if data, err := fs.ReadFile(g, filepath.Join(repo, "charts", "c", "values.yaml")); err != nil || string(data) != "a: 1\n" {
		t.Errorf("%q %v", data, err)
	}
	if list, err := fs.ReadDir(g, filepath.Join(repo, "charts")); err != nil || len(list) != 1 {
		t.Errorf("%v %v", list, err)
	}
}

// aliasedPaths links the chart's folder as charts/alias in linkedTree's
// repository and lists paths through it and around it: files, links in
// and out of the repository, a missing file and folder, and the chart.
func aliasedPaths(t *testing.T, repo, chart string) []string {
	t.Helper()
	link(t, "c", filepath.Join(repo, "charts", "alias"))
	return []string{
		filepath.Join(chart, "values.yaml"),
		filepath.Join(chart, "creds.yaml"),
		filepath.Join(chart, "same.yaml"),
		filepath.Join(chart, "home", "credentials"),
		filepath.Join(chart, "missing.yaml"),
		filepath.Join(repo, "charts", "alias", "values.yaml"),
		filepath.Join(repo, "charts", "alias", "creds.yaml"),
		filepath.Join(repo, "nowhere", "values.yaml"),
		chart,
	}
}

// follow resolves a folder once per run and the file each time: it must
// lead where filepath.EvalSymlinks does, with the same error, whether the
// folder was resolved before or not.
func TestFollowIsEvalSymlinks(t *testing.T) {
	repo, chart, _ := linkedTree(t)
	paths := aliasedPaths(t, repo, chart)
	f := newFS(t, Limits{}, repo)
	for round := range 2 {
		for _, p := range paths {
			want, wantErr := filepath.EvalSymlinks(p)
			got, err := f.follow(p)
			if got != want || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
				t.Errorf("round %d, %s: %q, %v; EvalSymlinks: %q, %v", round, p, got, err, want, wantErr)
			}
		}
	}
}

// ReadFile opens a file in its folder's resolved path without looking at
// it first (openDirect), and leaves any failure, a link's included, to the
// path resolved whole: what it reads, or the error it gives, must be what
// resolving first gives, for files, links in and out of the repository,
// a folder and a missing file.
func TestReadFileAsResolved(t *testing.T) {
	repo, chart, _ := linkedTree(t)
	f := newFS(t, Limits{}, repo)
	for _, p := range aliasedPaths(t, repo, chart) {
		want, wantErr := readResolved(f, p)
		got, err := f.ReadFile(p)
		if string(got) != string(want) || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Errorf("%s: %q, %v; resolved first: %q, %v", p, got, err, want, wantErr)
		}
	}
	if got, err := f.ReadFile(filepath.Join(chart, "same.yaml")); string(got) != "a: 1\n" || err != nil {
		t.Errorf("a link inside the repository: %q, %v", got, err)
	}
}

// readResolved is ReadFile by the path resolved whole first.
func readResolved(f *FS, name string) ([]byte, error) {
	file, err := f.openResolved(name)
	if err != nil {
		return nil, err
	}
	file, size, err := f.regular(name, file)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return f.read(name, file, size)
}

package load

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A walk reads regular files only: a named pipe would hang the run, a link
// to /dev/zero would fill the memory, and a link out of the folder reads
// what the repository does not hold. Each is skipped with a note; a link to
// a file inside the folder is read.
func TestWalkReadsRegularFilesOnly(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.yaml", node("a"))
	outside := filepath.Join(t.TempDir(), "secret.yaml")
	if err := os.WriteFile(outside, []byte(node("outside")), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"zero.yaml": "/dev/zero", "out.yaml": outside, "in.yaml": filepath.Join(dir, "a.yaml")} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	var notes []string
	objs, err := Load(context.Background(), []string{dir}, Options{Note: func(s string) { notes = append(notes, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(objs); got != "Node/a Node/a" {
		t.Errorf("objects %q, want a.yaml and the link to it", got)
	}
	joined := strings.Join(notes, "\n")
	for _, want := range []string{"pipe.yaml: skipped: not a regular file (a named pipe)", "zero.yaml: skipped: a symbolic link out of the folder, to /dev/zero", "out.yaml: skipped: a symbolic link out of the folder"} {
		if !strings.Contains(joined, want) {
			t.Errorf("notes lack %q:\n%s", want, joined)
		}
	}
}

// endless is a stdin that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

func TestInputsAreBounded(t *testing.T) {
	_, err := Load(context.Background(), []string{"-"}, Options{Stdin: endless{}, MaxFile: 1 << 20})
	if err == nil || err.Error() != "-: larger than 1Mi, the most one input may be (--max-file-size)" {
		t.Fatalf("endless stdin: %v", err)
	}
	dir := t.TempDir()
	for _, name := range []string{"a.yaml", "b.yaml", "c.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(node(name)+strings.Repeat("# pad\n", 200)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err = Load(context.Background(), []string{dir}, Options{MaxTotal: 2000})
	if err == nil || !strings.HasPrefix(err.Error(), dir) || !strings.HasSuffix(err.Error(), ".yaml: the inputs are larger than 2000, the most a run reads (--max-input-size)") {
		t.Fatalf("total: %v", err)
	}
	if _, err := Load(context.Background(), []string{dir}, Options{MaxTotal: 1 << 20}); err != nil {
		t.Fatalf("within the limits: %v", err)
	}
}

package integrations

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// repo is the repository root; bin holds a drvcheck built once for the
// tests that need one on PATH.
var repo, bin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	if repo, err = filepath.Abs(filepath.Join("..", "..")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	dir, err := os.MkdirTemp("", "drvcheck-integrations-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.RemoveAll(dir)
	bin = filepath.Join(dir, "bin")
	cmd := exec.Command("go", "build", "-o", filepath.Join(bin, "drvcheck"), "./cmd/drvcheck")
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		return 2
	}
	return m.Run()
}

// pathWith puts dirs in front of PATH, keeping the go toolchain reachable.
func pathWith(dirs ...string) string {
	p := os.Getenv("PATH")
	for i := len(dirs) - 1; i >= 0; i-- {
		p = dirs[i] + string(os.PathListSeparator) + p
	}
	return p
}

package load

import (
	"os"
	"testing"

	"github.com/drvcheck/drvcheck/internal/repofs"
	"github.com/drvcheck/drvcheck/internal/sandbox"
)

// TestMain lets the test binary be the sandbox's child, as drvcheck is.
func TestMain(m *testing.M) {
	sandbox.Serve()
	os.Exit(m.Run())
}

// optsFor are the options of a run over paths: an opener whose roots are
// their repositories.
func optsFor(t *testing.T, paths ...string) Options {
	t.Helper()
	fsys, err := repofs.New(repofs.RootsOf(paths...), repofs.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return Options{FS: fsys}
}

// testFS is the opener of a run over the project's repository.
func testFS(t *testing.T) *repofs.FS { return optsFor(t, ".").FS }

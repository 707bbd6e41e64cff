package cluster

import (
	"os"
	"testing"

	"github.com/drvcheck/drvcheck/internal/testcluster"
)

// shared is the control plane of this package's tests.
var shared = &testcluster.Shared{}

func TestMain(m *testing.M) {
	code := m.Run()
	shared.Stop()
	os.Exit(code)
}

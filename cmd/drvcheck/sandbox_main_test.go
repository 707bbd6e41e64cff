package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/drvcheck/drvcheck/internal/sandbox"
)

// TestMain lets the test binary be the sandbox's child, as drvcheck is,
// and removes the binary the attack suite built.
func TestMain(m *testing.M) {
	sandbox.Serve()
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

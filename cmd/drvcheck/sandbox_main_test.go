package main

import (
	"os"
	"testing"

	"github.com/drvcheck/drvcheck/internal/sandbox"
)

// TestMain lets the test binary be the sandbox's child, as drvcheck is.
func TestMain(m *testing.M) {
	sandbox.Serve()
	os.Exit(m.Run())
}

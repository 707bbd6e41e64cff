package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// brokenPipe is a stdout that cannot be written, as when the reader of a
// pipe has gone.
type brokenPipe struct{}

func (brokenPipe) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// A command whose output cannot be written has not told anyone anything:
// it exits 2 and says so, whatever the result was.
func TestUnwritableStdoutIsExitTwo(t *testing.T) {
	for _, args := range [][]string{
		{"check", lab, "--matrix", matrix, "--fail-on", "none"},
		{"audit", lab, "--matrix", matrix},
		{"tag", "lab-node-1", lab},
		{"tag", "lab-node-1", lab, "--check", "--matrix", matrix},
		{"status", lab},
		{"plan", "lab-node-0", "--driver", "550.90.07", lab, "--matrix", matrix},
		{"input", lab},
		{"verify"},
		{"version"},
	} {
		var errOut bytes.Buffer
		code := run(context.Background(), &env{stdin: strings.NewReader(""), stdout: brokenPipe{}, stderr: &errOut}, args)
		if code != exitError || !strings.Contains(errOut.String(), "broken pipe") {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming the write error", args, code, errOut.String())
		}
	}
}

package main

import (
	"os/exec"
	"syscall"
	"testing"
)

// The heap is marked for huge pages at start with a block of 768 MiB that
// is never touched (internal/hugepages). Marked after the heap's first
// collection, the block could land on freed pages, which Go zeroes: one
// run of `drvcheck version` in ten then held 840 MiB. Twenty runs must
// each stay small. A child's peak RSS starts at its parent's (Linux keeps
// it across the vfork and exec that start it), so no test of this package
// may run a large fleet in-process: it would fail here for the test's own
// size (the 5,000-node tests run the built binary).
func TestStartTouchesNoBlock(t *testing.T) {
	bin := builtDrvcheck(t)
	for range 20 {
		cmd := exec.Command(bin, "version")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("version: %v\n%s", err, out)
		}
		if rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10; rss > 256<<20 {
			t.Fatalf("drvcheck version peaked at %d MiB; want under 256 MiB", rss>>20)
		}
	}
}

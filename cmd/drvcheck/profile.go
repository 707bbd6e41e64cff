package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/drvcheck/drvcheck/internal/repofs"
)

// profiling is --profile cpu=FILE,mem=FILE: a CPU profile of the whole
// command and a heap profile at its end, in pprof's format, so that a user
// whose fleet is slow can send where the time and memory go
// (docs/performance.md).
type profiling struct {
	cpu, mem string
	cpuFile  *os.File
}

// parseProfile reads the flag's value.
func parseProfile(spec string) (*profiling, error) {
	p := &profiling{}
	for part := range strings.SplitSeq(spec, ",") {
		kind, file, ok := strings.Cut(part, "=")
		switch {
		case !ok || file == "":
			return nil, fmt.Errorf("--profile %q: want cpu=FILE, mem=FILE or both, e.g. cpu=cpu.pprof,mem=mem.pprof", spec)
		case kind == "cpu":
			p.cpu = file
		case kind == "mem":
			p.mem = file
		default:
			return nil, fmt.Errorf("--profile %q: %q is neither cpu nor mem", spec, kind)
		}
	}
	return p, nil
}

// start begins the CPU profile.
func (p *profiling) start() error {
	if p.cpu == "" {
		return nil
	}
	f, err := createProfile(p.cpu)
	if err != nil {
		return fmt.Errorf("--profile cpu: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--profile cpu: %w", err)
	}
	p.cpuFile = f
	return nil
}

// stop ends the CPU profile and writes the heap profile.
func (p *profiling) stop() error {
	var errs []error
	if p.cpuFile != nil {
		pprof.StopCPUProfile()
		errs = append(errs, p.cpuFile.Close())
	}
	if p.mem != "" {
		f, err := createProfile(p.mem)
		if err == nil {
			runtime.GC() // the heap as the run left it, and its allocations
			err = errors.Join(pprof.Lookup("allocs").WriteTo(f, 0), f.Close())
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("--profile mem: %w", err))
		}
	}
	return errors.Join(errs...)
}

// createProfile creates a profile's file, a regular file only: opened
// without blocking, a named pipe at the path is refused at once instead
// of holding the run until something reads it.
func createProfile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return nil, err
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%s: not a regular file (%s)", path, repofs.KindOf(info.Mode()))
		}
		return nil, err
	}
	return f, nil
}

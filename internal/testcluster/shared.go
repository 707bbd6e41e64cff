package testcluster

import (
	"sync"
	"testing"
)

// Shared is one cluster for a whole test package, started on first use, so
// that a package pays the start once. Stop it from TestMain after m.Run.
type Shared struct {
	Options Options

	once sync.Once
	c    *Cluster
	err  error
}

// Get returns the package's cluster, starting it on first use; it skips
// or fails tb as Start does.
func (s *Shared) Get(tb testing.TB) *Cluster {
	tb.Helper()
	s.once.Do(func() { s.c, s.err = New(s.Options) })
	if Skipped(s.err) {
		tb.Skip(s.err)
	}
	if s.err != nil {
		tb.Fatal(s.err)
	}
	return s.c
}

// Stop stops the cluster if it was started.
func (s *Shared) Stop() {
	if s.c != nil {
		s.c.Stop()
	}
}

//go:build !linux

package sandbox

// limitData: only Linux counts mappings against RLIMIT_DATA; elsewhere the
// sampled ceiling (watch) alone bounds the child.
func limitData(int64) {}

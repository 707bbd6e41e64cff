//go:build !linux

package memlimit

// Available is 0 where drvcheck does not read the machine's memory.
func Available() int64 { return 0 }

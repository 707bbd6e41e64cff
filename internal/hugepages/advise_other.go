//go:build !linux

package hugepages

// Advise is Linux's (advise_linux.go).
func Advise() {}

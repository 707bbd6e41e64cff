//go:build !(linux && (amd64 || arm64))

package hugepages

// Advise is for Linux on 64-bit x86 and Arm (advise_linux.go), where the
// block it frees fits the address space.
func Advise() {}

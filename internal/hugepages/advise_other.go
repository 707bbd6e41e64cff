//go:build !(linux && (amd64 || arm64))

package hugepages

// The heap is marked for huge pages on Linux on 64-bit x86 and Arm only
// (advise_linux.go), where the block it frees fits the address space.

// Package hugepages marks the addresses the heap grows into for
// transparent huge pages as the program starts (imported for that alone),
// where the kernel gives them only on request: a run on a large fleet
// fills close to a gigabyte of fresh heap, and its page faults were a
// quarter of its time on the project's machine.
package hugepages

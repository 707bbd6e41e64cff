// Package hugepages asks the kernel to back the heap with transparent huge
// pages where it gives them only on request: a run on a large fleet fills
// close to a gigabyte of fresh heap, and its page faults and TLB misses
// were a quarter of its time on the project's machine.
package hugepages

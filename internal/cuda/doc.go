// Package cuda turns a container image into the oldest NVIDIA driver branch
// it runs on. CUDA is forward-compatible one way only: a container built on
// a newer CUDA fails at run time on an older driver. The CUDA release of an
// image comes from its tag (nvcr.io/nvidia/cuda:<x.y.z>-...) or from a table
// of NGC framework releases (nvcr.io/nvidia/pytorch:<yy.mm>-...), which users
// extend with data; the floor is then the CUDA major's minor-version
// compatibility floor, or with Strict the toolkit's own minimum driver.
// Every table is embedded from data/ with its source.
package cuda

// Package renderer renders Helm charts and builds kustomizations for
// internal/load, in the sandbox (internal/sandbox): each render is a
// sandbox job, registered by name in this package's init, so that the
// sandbox's child, the same binary, finds it. The job reads the
// repository through the run's opener (internal/repofs), rebuilt in the
// child from the run's roots and what is left of its limits; its answer
// is the rendered text, which load parses and places at its source's
// lines. It also reads what a kustomization names, to refuse a remote
// base before a build and to tell the kustomizations of a walk apart.
package renderer

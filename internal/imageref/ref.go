// Package imageref is the image reference drvcheck reasons about: a
// repository and a tag or a digest, kept as parts from where it is made
// (the operator's configuration, a matrix row) to where it is looked up
// (a registry, the catalog). It alone writes and reads the driver tag's
// format, so no other package spells it or splits a reference string.
package imageref

import (
	"fmt"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
)

// Ref is an image reference: a repository and a tag, a digest, or both
// (a tag pinned to a digest, which the kubelet pulls by the digest).
type Ref struct {
	Repository string // as written: nvcr.io/nvidia/driver
	Tag        string // 550-5.15.0-1-generic-ubuntu22.04
	Digest     string // sha256:…
}

// WithTag is repository:tag.
func WithTag(repository, tag string) Ref { return Ref{Repository: repository, Tag: tag} }

// WithDigest is repository@digest.
func WithDigest(repository, digest string) Ref { return Ref{Repository: repository, Digest: digest} }

// String writes the reference as a pod's image field holds it.
func (r Ref) String() string {
	s := r.Repository
	if r.Tag != "" {
		s += ":" + r.Tag
	}
	if r.Digest != "" {
		s += "@" + r.Digest
	}
	return s
}

// Parse reads a reference written elsewhere (a matrix row, a Deployment's
// image), checked with go-containerregistry's grammar (pkg/name), the one
// registries and kubelets apply. Its parts stay as written: name's own
// form adds docker.io's defaults ("library/", the tag "latest"), which
// the catalog's and the user's spelling do not.
func Parse(s string) (Ref, error) {
	if _, err := name.ParseReference(s); err != nil {
		return Ref{}, fmt.Errorf("%q is no image reference: %w", s, err)
	}
	return Split(s), nil
}

// Split cuts a reference into its parts as written, without checking it:
// for the image a workload names, whose tag is looked up in a table and
// which the kubelet, not drvcheck, refuses when it is malformed.
func Split(s string) Ref {
	var r Ref
	s, r.Digest, _ = strings.Cut(s, "@")
	if colon := strings.LastIndex(s, ":"); colon > strings.LastIndex(s, "/") {
		s, r.Tag = s[:colon], s[colon+1:]
	}
	r.Repository = s
	return r
}

package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// ParseBinaries reads -binaries: ARCH=PATH pairs separated by commas, one
// static linux binary per architecture.
func ParseBinaries(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, pair := range strings.Split(s, ",") {
		arch, path, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok || arch == "" || path == "" {
			return nil, fmt.Errorf("-binaries %q: want ARCH=PATH[,ARCH=PATH...]", s)
		}
		out[arch] = path
	}
	return out, nil
}

// Index is one image per architecture of binaries under a multi-arch OCI
// index, each with its linux platform, in a fixed order so the same
// binaries give the same digest.
func Index(o Options, binaries map[string]string) (v1.ImageIndex, error) {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, arch := range slices.Sorted(maps.Keys(binaries)) {
		one := o
		one.Arch, one.Binary = arch, binaries[arch]
		img, err := Image(one)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", arch, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: arch}}})
	}
	return idx, nil
}

// Push sends the index to ref (e.g. ghcr.io/drvcheck/drvcheck:v1.2.3) with
// the credentials of the docker config and its helpers, as docker login
// leaves them, and returns its digest.
func Push(ref string, idx v1.ImageIndex, opts ...remote.Option) (v1.Hash, error) {
	r, err := name.ParseReference(ref)
	if err != nil {
		return v1.Hash{}, err
	}
	opts = append([]remote.Option{remote.WithAuthFromKeychain(authn.DefaultKeychain)}, opts...)
	if err := remote.WriteIndex(r, idx, opts...); err != nil {
		return v1.Hash{}, err
	}
	return idx.Digest()
}

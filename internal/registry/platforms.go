package registry

import (
	"context"
	"slices"
	"sync"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Platforms are the CPU architectures each reference's image is built for:
// an index's manifests (NVIDIA publishes one multi-arch index per
// precompiled tag, gpu-driver-container multi-arch.mk), or a single
// image's config. The references are read in parallel, bounded as
// listings are; offline, or for a reference that cannot be read, none is
// answered and the caller falls back to what it knew (a reference's
// platforms are a refinement, never a reason to fail the run).
func (l *Lister) Platforms(ctx context.Context, refs []string) map[string][]string {
	out := map[string][]string{}
	if l.opt.Offline {
		return out
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, l.opt.Parallel)
	for _, s := range slices.Compact(slices.Sorted(slices.Values(refs))) {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			arches, err := l.platforms(ctx, s)
			if err != nil {
				l.opt.Warn("the platforms of " + s + " could not be read: " + reason(err))
				return
			}
			mu.Lock()
			out[s] = arches
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

// platforms reads one reference's architectures.
func (l *Lister) platforms(ctx context.Context, s string) ([]string, error) {
	ref, err := name.ParseReference(s)
	if err != nil {
		return nil, err
	}
	if insecureHost(ref.Context().RegistryStr(), l.opt.Insecure) {
		ref, _ = name.ParseReference(s, name.Insecure)
	}
	desc, err := remote.Get(ref, l.remoteOptions(ctx)...)
	if err != nil {
		return nil, err
	}
	if !desc.MediaType.IsIndex() {
		img, err := desc.Image()
		if err != nil {
			return nil, err
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			return nil, err
		}
		return []string{cfg.Architecture}, nil
	}
	idx, err := desc.ImageIndex()
	if err != nil {
		return nil, err
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	var arches []string
	for _, d := range m.Manifests {
		// Attestations sit in the index as unknown/unknown.
		if p := d.Platform; p != nil && p.Architecture != "" && p.Architecture != "unknown" && !slices.Contains(arches, p.Architecture) {
			arches = append(arches, p.Architecture)
		}
	}
	slices.Sort(arches)
	return arches, nil
}

package registry

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/drvcheck/drvcheck/internal/oneline"
)

// Platforms are the CPU architectures each reference's image is built for:
// an index's manifests (NVIDIA publishes one multi-arch index per
// precompiled tag, gpu-driver-container multi-arch.mk), or a single
// image's config. A fresh cache entry answers without a request, as for
// listings; the others are read in parallel, bounded as listings are, and
// kept in their repository's cache entry. Offline, or for a reference that
// cannot be read, none is answered, with a warning, and the caller falls
// back to what it knew (a reference's platforms are a refinement, never a
// reason to fail the run).
func (l *Lister) Platforms(ctx context.Context, refs []string) map[string][]string {
	out := map[string][]string{}
	var ask []string
	for repo, tags := range groupByRepository(refs) {
		cached, stale := l.cachedPlatforms(repo, tags)
		maps.Copy(out, cached)
		if l.opt.Offline && len(stale) > 0 {
			l.opt.Warn(fmt.Sprintf("--offline: the platforms of %d tag(s) of %s are not in the cache or older than --cache-ttl (%s): its nodes of other architectures than amd64 are checked by tag alone; run once without --offline",
				len(stale), repo, oneline.Few(stale, ", ")))
			continue
		}
		ask = append(ask, stale...)
	}
	read := l.readPlatforms(ctx, ask)
	maps.Copy(out, read)
	l.cachePlatforms(read)
	return out
}

// groupByRepository groups references by their repository's cache key,
// each tag with the reference as given. One that does not parse is kept
// under its own text, to be read (and fail, with a warning) as given.
func groupByRepository(refs []string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, s := range refs {
		repo, id := s, ""
		if ref, err := name.ParseReference(s); err == nil {
			repo, id = ref.Context().Name(), ref.Identifier()
		}
		if out[repo] == nil {
			out[repo] = map[string]string{}
		}
		out[repo][id] = s
	}
	return out
}

// cachedPlatforms answers the tags of repo that its cache entry holds,
// fresh, by reference; stale are the references it does not answer.
func (l *Lister) cachedPlatforms(repo string, tags map[string]string) (cached map[string][]string, stale []string) {
	cached = map[string][]string{}
	entry, _ := l.readCache(repo) // an unreadable entry was reported by the listing
	now := l.opt.Now()
	for _, id := range slices.Sorted(maps.Keys(tags)) {
		s := tags[id]
		if p, ok := entryPlatforms(entry, id); ok && fresh(p.Fetched, now, l.opt.CacheTTL) {
			cached[s] = p.Arches
			continue
		}
		stale = append(stale, s)
	}
	return cached, stale
}

func entryPlatforms(e *cacheEntry, id string) (cachedPlatforms, bool) {
	p, ok := e.platforms()[id]
	return p, ok && id != ""
}

// cachePlatforms keeps what was read in the entries of the repositories
// listed: a repository without an entry has no listing to keep them with
// (an entry is the repository's tags first; platforms alone would read
// as an empty listing).
func (l *Lister) cachePlatforms(read map[string][]string) {
	if l.cache == nil || len(read) == 0 {
		return
	}
	now := l.opt.Now()
	for repo, tags := range groupByRepository(slices.Collect(maps.Keys(read))) {
		entry, err := l.cache.read(repo)
		if err != nil || entry == nil {
			continue
		}
		if entry.Platforms == nil {
			entry.Platforms = map[string]cachedPlatforms{}
		}
		for id, s := range tags {
			entry.Platforms[id] = cachedPlatforms{Arches: read[s], Fetched: now}
		}
		if err := l.cache.write(*entry); err != nil {
			l.opt.Warn("platforms not cached: " + err.Error())
		}
	}
}

// readPlatforms reads each reference's platforms from its registry.
func (l *Lister) readPlatforms(ctx context.Context, refs []string) map[string][]string {
	out := map[string][]string{}
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

package registry

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Listing is the tags of one repository.
type Listing struct {
	Repository string // as the user gave it
	Tags       []string
	Fetched    time.Time // when the registry was asked
	Cached     bool      // read from the on-disk cache, no request sent
}

// Lister lists repositories, each at most once in its lifetime: a run
// makes one Lister, so a repository named twice, or asked for by two
// commands' steps, costs one listing.
type Lister struct {
	opt   Options
	rt    http.RoundTripper
	cache *cache

	mu   sync.Mutex
	memo map[string]*pending // by normalized repository name
}

// pending is a listing in progress or done.
type pending struct {
	done    chan struct{}
	listing Listing
	err     error
}

// New returns a Lister; it fails only on bad options (an unreadable CA file).
func New(opt Options) (*Lister, error) {
	opt = opt.withDefaults()
	rt, err := newTransport(opt)
	if err != nil {
		return nil, err
	}
	l := &Lister{opt: opt, rt: rt, memo: map[string]*pending{}}
	if opt.CacheDir != "" {
		l.cache = &cache{dir: opt.CacheDir}
	}
	return l, nil
}

// List lists every repository in repos, in parallel (bounded by
// Options.Parallel), and returns the listings in the order given, without
// repeats. Any repository that fails makes the whole call fail: a partial
// answer would report missing images that exist.
func (l *Lister) List(ctx context.Context, repos []string) ([]Listing, error) {
	refs, given, err := l.parse(repos)
	if err != nil {
		return nil, err
	}
	out := make([]Listing, len(refs))
	errs := make([]error, len(refs))
	sem := make(chan struct{}, l.opt.Parallel)
	var wg sync.WaitGroup
	for i := range refs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i], errs[i] = l.once(ctx, refs[i], given[i])
		}()
	}
	wg.Wait()
	var failed Errors
	for _, e := range errs {
		if e != nil {
			failed = append(failed, e)
		}
	}
	if len(failed) > 0 {
		return nil, failed
	}
	return out, nil
}

// parse turns the repositories into references, dropping repeats (by
// their normalized name, so "nvidia/x" and "index.docker.io/nvidia/x" are
// one). A host named by --insecure-registry is parsed as insecure, which
// lets go-containerregistry fall back to plain HTTP for it.
func (l *Lister) parse(repos []string) ([]name.Repository, []string, error) {
	var refs []name.Repository
	var given []string
	seen := map[string]bool{}
	for _, s := range repos {
		ref, err := name.NewRepository(s)
		if err != nil {
			return nil, nil, fmt.Errorf("--registry %q: not an image repository such as nvcr.io/nvidia/driver (%v)", s, err)
		}
		if insecureHost(ref.RegistryStr(), l.opt.Insecure) {
			ref, _ = name.NewRepository(s, name.Insecure)
		}
		if seen[ref.Name()] {
			continue
		}
		seen[ref.Name()] = true
		refs = append(refs, ref)
		given = append(given, s)
	}
	return refs, given, nil
}

// once lists ref unless this Lister already did (or is doing) it.
func (l *Lister) once(ctx context.Context, ref name.Repository, given string) (Listing, error) {
	key := ref.Name()
	l.mu.Lock()
	p, ok := l.memo[key]
	if !ok {
		p = &pending{done: make(chan struct{})}
		l.memo[key] = p
	}
	l.mu.Unlock()
	if ok {
		select {
		case <-p.done:
		case <-ctx.Done():
			return Listing{}, l.fail(ref, ctx.Err())
		}
		lst := p.listing
		lst.Repository = given
		return lst, p.err
	}
	p.listing, p.err = l.list(ctx, ref, given)
	close(p.done)
	return p.listing, p.err
}

// list answers from a fresh cache entry, else from the registry (never
// when offline), and caches what the registry said.
func (l *Lister) list(ctx context.Context, ref name.Repository, given string) (Listing, error) {
	key := ref.Name()
	now := l.opt.Now()
	entry, cerr := l.readCache(key)
	if entry != nil && fresh(entry.Fetched, now, l.opt.CacheTTL) {
		return Listing{Repository: given, Tags: entry.Tags, Fetched: entry.Fetched, Cached: true}, nil
	}
	if l.opt.Offline {
		return Listing{}, l.offlineError(ref, entry, cerr, now)
	}
	if cerr != nil {
		l.opt.Warn("ignoring unreadable " + cerr.Error())
	}
	tags, err := l.paginate(ctx, ref)
	if err != nil {
		return Listing{}, l.fail(ref, err)
	}
	slices.Sort(tags)
	tags = slices.Compact(tags)
	lst := Listing{Repository: given, Tags: tags, Fetched: now}
	if l.cache != nil {
		// The tags' platforms age on their own clocks: kept.
		if err := l.cache.write(cacheEntry{Repository: key, Fetched: now, Tags: tags, Platforms: entry.platforms()}); err != nil {
			l.opt.Warn("registry listing not cached: " + err.Error())
		}
	}
	return lst, nil
}

func (l *Lister) readCache(key string) (*cacheEntry, error) {
	if l.cache == nil {
		return nil, nil
	}
	return l.cache.read(key)
}

// offlineError says why --offline cannot answer for ref.
func (l *Lister) offlineError(ref name.Repository, entry *cacheEntry, cerr error, now time.Time) error {
	why := ""
	switch {
	case l.cache == nil:
		why = "no cache folder (set --cache-dir)"
	case cerr != nil:
		why = "cache unreadable: " + cerr.Error()
	case entry == nil:
		why = "not in the cache " + l.cache.dir + "; run once without --offline"
	default:
		why = fmt.Sprintf("cached listing is %s old, older than --cache-ttl %s; run without --offline or raise --cache-ttl",
			now.Sub(entry.Fetched).Round(time.Second), l.opt.CacheTTL)
	}
	return &Error{Registry: ref.RegistryStr(), Repository: ref.RepositoryStr(), Reason: "--offline: " + why}
}

func (l *Lister) fail(ref name.Repository, err error) error {
	return &Error{Registry: ref.RegistryStr(), Repository: ref.RepositoryStr(), Reason: reason(err), Err: err}
}

// remoteOptions hand go-containerregistry our transport, which already
// times out and retries, so its own retries are turned off.
func (l *Lister) remoteOptions(ctx context.Context) []remote.Option {
	opts := []remote.Option{
		remote.WithContext(ctx),
		remote.WithTransport(l.rt),
		remote.WithAuthFromKeychain(l.opt.Keychain),
		remote.WithRetryStatusCodes(),
		remote.WithRetryPredicate(func(error) bool { return false }),
		remote.WithUserAgent("drvcheck"),
	}
	if l.opt.PageSize > 0 {
		opts = append(opts, remote.WithPageSize(l.opt.PageSize))
	}
	return opts
}

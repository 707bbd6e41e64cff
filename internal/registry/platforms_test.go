package registry_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/drvcheck/drvcheck/internal/registry"
	"github.com/drvcheck/drvcheck/internal/registry/registrytest"
)

// A tag's platforms are kept with its repository's listing: a second run
// within --cache-ttl reads none, an offline run answers from the cache
// and warns for a tag it does not hold, and past the TTL the registry is
// asked again.
func TestPlatformsAreCached(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "nvidia/driver", labTags...)
	opt := fast()
	opt.CacheDir, opt.CacheTTL = t.TempDir(), time.Hour
	var mu sync.Mutex
	var warned []string
	opt.Warn = func(m string) { mu.Lock(); warned = append(warned, m); mu.Unlock() }
	repo := s.Repo("nvidia/driver")
	ref := repo + ":" + labTags[0]
	platforms := func(opt registry.Options, refs ...string) map[string][]string {
		t.Helper()
		list(t, opt, repo) // a run lists the repository first
		return newLister(t, opt).Platforms(context.Background(), refs)
	}

	first := platforms(opt, ref)
	if len(first[ref]) == 0 || s.Requests() == 0 {
		t.Fatalf("cold cache: %v after %d requests", first, s.Requests())
	}
	s.Reset()
	if again := platforms(opt, ref); !slices.Equal(again[ref], first[ref]) || s.Requests() != 0 {
		t.Errorf("warm cache: %v after %d requests (%v), want %v and none", again, s.Requests(), s.Log(), first[ref])
	}

	offline := opt
	offline.Offline = true
	other := repo + ":" + labTags[1]
	got := platforms(offline, ref, other)
	if !slices.Equal(got[ref], first[ref]) || got[other] != nil || s.Requests() != 0 {
		t.Errorf("offline: %v after %d requests", got, s.Requests())
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "--offline: the platforms of 1 tag(s) of "+repo+" are not in the cache") || !strings.Contains(warned[0], other) {
		t.Errorf("offline warnings: %q", warned)
	}

	// A listing that is refreshed keeps the platforms, and they age on
	// their own: past the TTL the index is read again.
	later := opt
	later.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	if got := platforms(later, ref); !slices.Equal(got[ref], first[ref]) || s.Listings("nvidia/driver") != 1 || !slices.ContainsFunc(s.Log(), func(l string) bool { return strings.Contains(l, "/manifests/"+labTags[0]) }) {
		t.Errorf("expired: %v; requests %v", got, s.Log())
	}
}

package registry_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"

	"github.com/drvcheck/drvcheck/internal/registry"
	"github.com/drvcheck/drvcheck/internal/registry/registrytest"
)

// The lab's tags (testdata/lab): three built, the fourth added later.
var labTags = []string{
	"535-5.15.0-107-generic-ubuntu22.04",
	"550-5.15.0-119-generic-ubuntu22.04",
	"550-6.8.0-45-generic-ubuntu24.04",
}

// anonymous is a keychain with no credentials, so no test reads the
// machine's docker config.
type anonymous struct{}

func (anonymous) Resolve(authn.Resource) (authn.Authenticator, error) { return authn.Anonymous, nil }

// basic is a keychain holding one user and password.
type basic struct{ user, password string }

func (b basic) Resolve(authn.Resource) (authn.Authenticator, error) {
	return authn.FromConfig(authn.AuthConfig{Username: b.user, Password: b.password}), nil
}

// fast are options for tests: short waits, no cache.
func fast() registry.Options {
	return registry.Options{
		Timeout:  2 * time.Second,
		Retry:    registry.Backoff{Attempts: 3, Base: time.Millisecond, Max: 5 * time.Second},
		Keychain: anonymous{},
	}
}

func newLister(t *testing.T, opt registry.Options) *registry.Lister {
	t.Helper()
	l, err := registry.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func list(t *testing.T, opt registry.Options, repos ...string) []registry.Listing {
	t.Helper()
	got, err := newLister(t, opt).List(context.Background(), repos)
	if err != nil {
		t.Fatalf("List(%v): %v", repos, err)
	}
	return got
}

// listErr lists and wants a *registry.Error for repo; it returns the message.
func listErr(t *testing.T, opt registry.Options, repo string) string {
	t.Helper()
	_, err := newLister(t, opt).List(context.Background(), []string{repo})
	if err == nil {
		t.Fatalf("List(%s): no error, want one", repo)
	}
	var re *registry.Error
	if !errors.As(err, &re) {
		t.Fatalf("List(%s): error %T %v, want *registry.Error", repo, err, err)
	}
	msg := err.Error()
	host, path, _ := strings.Cut(repo, "/")
	if !strings.Contains(msg, "registry "+host) || !strings.Contains(msg, "repository "+path) {
		t.Errorf("error %q does not name registry %s and repository %s", msg, host, path)
	}
	return msg
}

func TestListsEachRepositoryOnce(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "nvidia/driver", labTags...)
	s.Push(t, "acme/driver", "550-6.8.0-52-generic-ubuntu24.04")
	l := newLister(t, fast())
	repos := []string{s.Repo("nvidia/driver"), s.Repo("acme/driver"), s.Repo("nvidia/driver")}
	got, err := l.List(context.Background(), repos)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("got %d listings, want 2 (the repeat dropped): %+v", len(got), got)
	}
	if !slices.Equal(got[0].Tags, labTags) || got[0].Repository != s.Repo("nvidia/driver") {
		t.Errorf("first listing = %+v, want %v", got[0], labTags)
	}
	if !slices.Equal(got[1].Tags, []string{"550-6.8.0-52-generic-ubuntu24.04"}) {
		t.Errorf("second listing = %+v", got[1])
	}
	// The same Lister asked again (as a second step of one run would) sends nothing.
	before := s.Requests()
	if _, err := l.List(context.Background(), repos); err != nil {
		t.Fatal(err)
	}
	for _, repo := range []string{"nvidia/driver", "acme/driver"} {
		if n := s.Listings(repo); n != 1 {
			t.Errorf("%s listed %d times, want 1; requests: %v", repo, n, s.Log())
		}
	}
	if s.Requests() != before {
		t.Errorf("second List sent %d requests, want 0", s.Requests()-before)
	}
}

func TestFollowsPagination(t *testing.T) {
	s := registrytest.New(t)
	tags := make([]string, 2500)
	for i := range tags {
		tags[i] = fmt.Sprintf("550-5.15.0-%04d-generic-ubuntu22.04", i)
	}
	s.Push(t, "nvidia/driver", tags...)
	got := list(t, fast(), s.Repo("nvidia/driver"))
	if !slices.Equal(got[0].Tags, tags) {
		t.Errorf("got %d tags, want all %d", len(got[0].Tags), len(tags))
	}
	if p := s.Pages("nvidia/driver"); p != 3 {
		t.Errorf("%d pages requested, want 3 (1000 a page); log: %v", p, s.Log())
	}
	if n := s.Listings("nvidia/driver"); n != 1 {
		t.Errorf("%d listings, want 1", n)
	}

	s.Reset()
	opt := fast()
	opt.PageSize = 7
	got = list(t, opt, s.Repo("nvidia/driver"))
	if len(got[0].Tags) != len(tags) {
		t.Errorf("page size 7: got %d tags, want %d", len(got[0].Tags), len(tags))
	}
	if p, want := s.Pages("nvidia/driver"), (len(tags)+6)/7; p != want {
		t.Errorf("page size 7: %d pages, want %d", p, want)
	}
}

func TestParallelIsBounded(t *testing.T) {
	s := registrytest.New(t)
	var repos []string
	for i := range 6 {
		repo := fmt.Sprintf("team%d/driver", i)
		s.Push(t, repo, labTags[0])
		repos = append(repos, s.Repo(repo))
	}
	s.Inject(registrytest.Fault{Match: "/tags/list", Delay: 100 * time.Millisecond})
	opt := fast()
	opt.Parallel = 2
	got := list(t, opt, repos...)
	if len(got) != 6 {
		t.Fatalf("got %d listings, want 6", len(got))
	}
	// Slow answers overlap: exactly two at once means parallel, and bounded.
	if m := s.MaxInFlight(); m != 2 {
		t.Errorf("at most %d requests at once, want 2", m)
	}
}

func TestWarmCacheSendsNoRequest(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "nvidia/driver", labTags...)
	opt := fast()
	opt.CacheDir, opt.CacheTTL = t.TempDir(), time.Hour
	first := list(t, opt, s.Repo("nvidia/driver"))
	if first[0].Cached || s.Requests() == 0 {
		t.Fatalf("cold cache: cached=%v requests=%d, want a real listing", first[0].Cached, s.Requests())
	}
	s.Reset()
	second := list(t, opt, s.Repo("nvidia/driver"))
	if n := s.Requests(); n != 0 {
		t.Errorf("warm cache sent %d requests, want 0: %v", n, s.Log())
	}
	if !second[0].Cached || !slices.Equal(second[0].Tags, labTags) {
		t.Errorf("warm cache listing = %+v, want the cached lab tags", second[0])
	}

	// Past the TTL the registry is asked again, and sees the new tag.
	s.Push(t, "nvidia/driver", "550-6.8.0-52-generic-ubuntu24.04")
	opt.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	third := list(t, opt, s.Repo("nvidia/driver"))
	if third[0].Cached || s.Listings("nvidia/driver") != 1 || len(third[0].Tags) != 4 {
		t.Errorf("expired cache: %+v, %d listings; want a new listing with 4 tags", third[0], s.Listings("nvidia/driver"))
	}

	// TTL 0 never reads the cache.
	s.Reset()
	opt.Now, opt.CacheTTL = nil, 0
	list(t, opt, s.Repo("nvidia/driver"))
	if s.Listings("nvidia/driver") != 1 {
		t.Errorf("--cache-ttl 0 did not list")
	}
}

func TestOffline(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "nvidia/driver", labTags...)
	opt := fast()
	opt.CacheDir, opt.CacheTTL = t.TempDir(), time.Hour
	list(t, opt, s.Repo("nvidia/driver"))
	s.Reset()

	opt.Offline = true
	got := list(t, opt, s.Repo("nvidia/driver"))
	if !got[0].Cached || !slices.Equal(got[0].Tags, labTags) {
		t.Errorf("offline with a warm cache: %+v", got[0])
	}
	msg := listErr(t, opt, s.Repo("other/driver"))
	if !strings.Contains(msg, "--offline: not in the cache") {
		t.Errorf("offline, uncached: %q", msg)
	}
	stale := opt
	stale.Now = func() time.Time { return time.Now().Add(3 * time.Hour) }
	msg = listErr(t, stale, s.Repo("nvidia/driver"))
	if !strings.Contains(msg, "older than --cache-ttl 1h0m0s") {
		t.Errorf("offline, stale: %q", msg)
	}
	nodir := opt
	nodir.CacheDir = ""
	msg = listErr(t, nodir, s.Repo("nvidia/driver"))
	if !strings.Contains(msg, "no cache folder") {
		t.Errorf("offline, no cache folder: %q", msg)
	}
	if n := s.Requests(); n != 0 {
		t.Errorf("offline sent %d requests: %v", n, s.Log())
	}
}

func TestRetriesHonourRetryAfter(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "nvidia/driver", labTags...)
	s.Inject(registrytest.Fault{Match: "/tags/list", Status: 429, RetryAfter: "1", Times: 1})
	start := time.Now()
	got := list(t, fast(), s.Repo("nvidia/driver"))
	if !slices.Equal(got[0].Tags, labTags) {
		t.Errorf("after a 429: %+v", got[0])
	}
	// The backoff alone would wait 1ms; Retry-After: 1 asks for a second.
	if d := time.Since(start); d < time.Second {
		t.Errorf("retried after %s, before Retry-After: 1", d)
	}
	if p := s.Pages("nvidia/driver"); p != 2 {
		t.Errorf("%d tag list requests, want 2 (the 429, then the retry)", p)
	}
}

func TestRetriesServerErrors(t *testing.T) {
	for _, status := range []int{500, 502, 503, 504} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			s := registrytest.New(t)
			s.Push(t, "nvidia/driver", labTags...)
			s.Inject(registrytest.Fault{Match: "/tags/list", Status: status, Times: 2})
			got := list(t, fast(), s.Repo("nvidia/driver"))
			if !slices.Equal(got[0].Tags, labTags) {
				t.Errorf("after two %ds: %+v", status, got[0])
			}
			if p := s.Pages("nvidia/driver"); p != 3 {
				t.Errorf("%d tag list requests, want 3", p)
			}
		})
	}
}

func TestGivesUpAfterRetries(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "nvidia/driver", labTags...)
	s.Inject(registrytest.Fault{Match: "/tags/list", Status: 503})
	msg := listErr(t, fast(), s.Repo("nvidia/driver"))
	if !strings.Contains(msg, "server error (503 Service Unavailable) after 3 attempts") {
		t.Errorf("message %q", msg)
	}
	if p := s.Pages("nvidia/driver"); p != 3 {
		t.Errorf("%d tag list requests, want 3 (--retries)", p)
	}

	s.Reset()
	s.Inject(registrytest.Fault{Match: "/tags/list", Status: 429})
	msg = listErr(t, fast(), s.Repo("nvidia/driver"))
	if !strings.Contains(msg, "rate limited (429 Too Many Requests) after 3 attempts") {
		t.Errorf("message %q", msg)
	}
}

func TestRetryAfterLongerThanMaxFailsAtOnce(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "nvidia/driver", labTags...)
	s.Inject(registrytest.Fault{Match: "/tags/list", Status: 429, RetryAfter: "3600"})
	start := time.Now()
	msg := listErr(t, fast(), s.Repo("nvidia/driver"))
	if !strings.Contains(msg, "rate limited (429 Too Many Requests); it asks to retry after 1h0m0s") {
		t.Errorf("message %q", msg)
	}
	if p := s.Pages("nvidia/driver"); p != 1 || time.Since(start) > time.Second {
		t.Errorf("%d requests in %s; want one, no waiting", p, time.Since(start))
	}
}

func TestSlowAnswers(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "nvidia/driver", labTags...)
	opt := fast()
	opt.Timeout = 400 * time.Millisecond
	s.Inject(registrytest.Fault{Match: "/tags/list", Delay: 5 * time.Second, Times: 1})
	got := list(t, opt, s.Repo("nvidia/driver"))
	if !slices.Equal(got[0].Tags, labTags) {
		t.Errorf("after one slow answer: %+v", got[0])
	}
	if p := s.Pages("nvidia/driver"); p != 2 {
		t.Errorf("%d tag list requests, want 2", p)
	}

	s.Reset()
	s.Inject(registrytest.Fault{Match: "/tags/list", Delay: 5 * time.Second})
	msg := listErr(t, opt, s.Repo("nvidia/driver"))
	if !strings.Contains(msg, "no answer within 400ms (--registry-timeout) after 3 attempts") {
		t.Errorf("message %q", msg)
	}
}

func TestFailsClosed(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "nvidia/driver", labTags...)

	msg := listErr(t, fast(), s.Repo("nvidia/nothing"))
	if !strings.Contains(msg, "repository not found (404 Not Found NAME_UNKNOWN)") {
		t.Errorf("unknown repository: %q", msg)
	}

	s.Inject(registrytest.Fault{Match: "/tags/list", Status: 403})
	msg = listErr(t, fast(), s.Repo("nvidia/driver"))
	if !strings.Contains(msg, "access denied (403 Forbidden DENIED)") {
		t.Errorf("403: %q", msg)
	}

	gone := registrytest.New(t)
	gone.Close()
	msg = listErr(t, fast(), gone.Repo("nvidia/driver"))
	if !strings.Contains(msg, "unreachable: connection refused") {
		t.Errorf("stopped registry: %q", msg)
	}
}

func TestAllFailuresNamed(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "nvidia/driver", labTags...)
	_, err := newLister(t, fast()).List(context.Background(),
		[]string{s.Repo("a/missing"), s.Repo("nvidia/driver"), s.Repo("b/missing")})
	if err == nil {
		t.Fatal("no error with two unknown repositories")
	}
	msg := err.Error()
	if !strings.Contains(msg, "repository a/missing") || !strings.Contains(msg, "repository b/missing") || strings.Contains(msg, "\n") {
		t.Errorf("error %q should name both repositories on one line", msg)
	}
}

func TestBasicAuthCredentials(t *testing.T) {
	const user, password = "ci-bot", "s3cr3t-Pa55word"
	s := registrytest.New(t, registrytest.BasicAuth(user, password))
	s.Push(t, "nvidia/driver", labTags...) // pushes go past the auth wrapper

	msg := listErr(t, fast(), s.Repo("nvidia/driver"))
	if !strings.Contains(msg, "authentication failed (401 Unauthorized UNAUTHORIZED)") {
		t.Errorf("anonymous: %q", msg)
	}
	wrong := fast()
	wrong.Keychain = basic{user, "wrong-" + password}
	msg = listErr(t, wrong, s.Repo("nvidia/driver"))
	if !strings.Contains(msg, "authentication failed (401") || strings.Contains(msg, password) || strings.Contains(msg, user) {
		t.Errorf("wrong password: %q (must fail and name no credential)", msg)
	}
	right := fast()
	right.Keychain = basic{user, password}
	got := list(t, right, s.Repo("nvidia/driver"))
	if !slices.Equal(got[0].Tags, labTags) {
		t.Errorf("with credentials: %+v", got[0])
	}
}

func TestAnonymousTokenAuth(t *testing.T) {
	s := registrytest.New(t, registrytest.AnonymousToken())
	s.Push(t, "nvidia/driver", labTags...)
	got := list(t, fast(), s.Repo("nvidia/driver"))
	if !slices.Equal(got[0].Tags, labTags) {
		t.Errorf("anonymous token: %+v", got[0])
	}
	if !slices.ContainsFunc(s.Log(), func(r string) bool { return strings.HasPrefix(r, "GET /token") }) {
		t.Errorf("no token was fetched: %v", s.Log())
	}
}

func TestPrivateCA(t *testing.T) {
	s := registrytest.NewTLS(t)
	s.Push(t, "nvidia/driver", labTags...)
	msg := listErr(t, fast(), s.Repo("nvidia/driver"))
	if !strings.Contains(msg, "TLS certificate not trusted") || !strings.Contains(msg, "--registry-ca") {
		t.Errorf("without the CA: %q", msg)
	}
	opt := fast()
	opt.CAFiles = []string{s.CAFile(t, t.TempDir())}
	got := list(t, opt, s.Repo("nvidia/driver"))
	if !slices.Equal(got[0].Tags, labTags) {
		t.Errorf("with the CA: %+v", got[0])
	}

	bad := filepath.Join(t.TempDir(), "bad.pem")
	if err := os.WriteFile(bad, []byte("not a certificate"), 0o644); err != nil {
		t.Fatal(err)
	}
	opt.CAFiles = []string{bad}
	if _, err := registry.New(opt); err == nil || !strings.Contains(err.Error(), "--registry-ca "+bad+": no PEM certificate") {
		t.Errorf("bad CA file: %v", err)
	}
	opt.CAFiles = []string{filepath.Join(t.TempDir(), "absent.pem")}
	if _, err := registry.New(opt); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("absent CA file: %v", err)
	}
}

func TestBadRepositoryName(t *testing.T) {
	_, err := newLister(t, fast()).List(context.Background(), []string{"nvcr.io/nvidia/driver:550"})
	if err == nil || !strings.Contains(err.Error(), `--registry "nvcr.io/nvidia/driver:550": not an image repository`) {
		t.Errorf("got %v", err)
	}
}

func TestCacheWriteFailureOnlyWarns(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "nvidia/driver", labTags...)
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	opt := fast()
	opt.CacheDir, opt.CacheTTL = blocker, time.Hour // a file, so no folder can be made in it
	var mu sync.Mutex
	var warnings []string
	opt.Warn = func(m string) { mu.Lock(); warnings = append(warnings, m); mu.Unlock() }
	got := list(t, opt, s.Repo("nvidia/driver"))
	if !slices.Equal(got[0].Tags, labTags) {
		t.Errorf("listing with a broken cache: %+v", got[0])
	}
	if !slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, "registry listing not cached: cache "+blocker) }) {
		t.Errorf("warnings = %q, want one that the listing was not cached", warnings)
	}
}

func TestInterrupted(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "nvidia/driver", labTags...)
	s.Inject(registrytest.Fault{Match: "/tags/list", Delay: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := newLister(t, fast()).List(ctx, []string{s.Repo("nvidia/driver")})
	if err == nil {
		t.Fatal("no error after the context ended")
	}
}

// A registry that never stops is stopped: a Link header back to the same
// page, pages that go on for ever, and a redirect to itself each end in an
// error naming the registry, after a bounded number of requests.
func TestMisbehavingRegistriesAreBounded(t *testing.T) {
	page := func(next func(r *http.Request) string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next"`, next(r)))
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"name": "nvidia/driver", "tags": ["t-%s"]}`, r.URL.Query().Get("last"))
		}
	}
	var counter atomic.Int64
	cases := map[string]struct {
		answer http.HandlerFunc
		want   string
	}{
		"link to itself": {page(func(r *http.Request) string { return r.URL.Path + "?n=1&last=same" }), "links back to an earlier page"},
		"endless pages": {page(func(r *http.Request) string {
			return fmt.Sprintf("%s?n=1&last=%d", r.URL.Path, counter.Add(1))
		}), "more than 50 pages"},
		"redirect to itself": {func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.RequestURI(), http.StatusTemporaryRedirect)
		}, "more than 10 redirects"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			s := registrytest.New(t)
			s.Push(t, "nvidia/driver", "550-a-ubuntu22.04")
			s.Inject(registrytest.Fault{Match: "/tags/list", Answer: c.answer})
			l, err := registry.New(registry.Options{MaxPages: 50, Keychain: anonymous{}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = l.List(context.Background(), []string{s.Repo("nvidia/driver")})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "registry "+s.Host) {
				t.Fatalf("error %v, want it to name the registry and say %q", err, c.want)
			}
			if n := s.Requests(); n > 100 {
				t.Fatalf("%d requests before stopping", n)
			}
		})
	}
}

func TestSlowPagesEndAtTheListingDeadline(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "nvidia/driver", "a", "b", "c")
	s.Inject(registrytest.Fault{Match: "/tags/list", Delay: 300 * time.Millisecond})
	l, err := registry.New(registry.Options{ListTimeout: 100 * time.Millisecond, Keychain: anonymous{}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.List(context.Background(), []string{s.Repo("nvidia/driver")})
	if err == nil || !strings.Contains(err.Error(), "the listing took longer than 100ms") {
		t.Fatalf("error %v", err)
	}
}

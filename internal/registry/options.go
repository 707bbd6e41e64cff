package registry

import (
	"time"

	"github.com/google/go-containerregistry/pkg/authn"

	"github.com/drvcheck/drvcheck/internal/repofs"
)

// Defaults of the command-line flags.
const (
	DefaultTimeout  = 15 * time.Second
	DefaultCacheTTL = time.Hour
	// DefaultParallel bounds how many repositories are listed at once, so a
	// long --registry list does not open a burst of connections.
	DefaultParallel = 4
	// A listing stops, as an error, past any of these: a registry whose
	// Link headers never end would otherwise be paged forever. NGC's
	// largest driver repository has a few thousand tags.
	DefaultMaxPages    = 10_000
	DefaultMaxTags     = 1_000_000
	DefaultListTimeout = 5 * time.Minute
	// MaxRedirects is net/http's own limit, which go-containerregistry's
	// redirect check drops.
	MaxRedirects = 10
)

// Options configure a Lister. The zero value lists with the defaults, no
// cache and the docker config's credentials.
type Options struct {
	// CAFiles are PEM files of extra certificate authorities, trusted on top
	// of the system's (--registry-ca).
	CAFiles []string
	// FS reads CAFiles (internal/repofs); nil reads them as named.
	FS *repofs.FS
	// Insecure names the registries that may be reached over plain HTTP
	// (--insecure-registry): "host" for any port, or "host:port". Loopback
	// hosts may always fall back to plain HTTP, as go-containerregistry does.
	Insecure []string
	// Timeout bounds each HTTP request, headers and body (--registry-timeout).
	Timeout time.Duration
	// Retry shapes the retries of 429, 5xx and timed-out requests.
	Retry Backoff

	// CacheDir holds the listed tags between runs; empty disables the cache.
	CacheDir string
	// CacheTTL is how long a cached listing is used without asking the
	// registry. Zero never reads the cache (it is still written).
	CacheTTL time.Duration
	// Offline answers from the cache alone; a repository without a usable
	// cache entry is an error.
	Offline bool

	// Parallel bounds how many repositories are listed at once.
	Parallel int
	// PageSize is the n of each tags/list request; zero keeps
	// go-containerregistry's default (1000).
	PageSize int
	// MaxPages, MaxTags and ListTimeout bound one repository's listing
	// (zero: the defaults).
	MaxPages, MaxTags int
	ListTimeout       time.Duration
	// Keychain finds credentials; nil means authn.DefaultKeychain (docker
	// config, credential helpers, anonymous when none match).
	Keychain authn.Keychain
	// Warn receives notes that do not change the answer, such as a cache that
	// could not be written. Nil drops them.
	Warn func(msg string)
	// Now is the clock, for tests; nil means time.Now.
	Now func() time.Time
}

// Backoff is how failed requests are retried: at most Attempts tries in
// all, waiting Base, then twice as long each time (with jitter), never more
// than Max. A Retry-After answer replaces the computed wait when it is no
// longer than Max; a longer one ends the retries at once.
type Backoff struct {
	Attempts  int
	Base, Max time.Duration
}

// DefaultBackoff tries four times within a few seconds of waiting.
var DefaultBackoff = Backoff{Attempts: 4, Base: 500 * time.Millisecond, Max: 30 * time.Second}

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Retry.Attempts <= 0 {
		o.Retry.Attempts = DefaultBackoff.Attempts
	}
	if o.Retry.Base <= 0 {
		o.Retry.Base = DefaultBackoff.Base
	}
	if o.Retry.Max <= 0 {
		o.Retry.Max = DefaultBackoff.Max
	}
	if o.Parallel <= 0 {
		o.Parallel = DefaultParallel
	}
	if o.MaxPages <= 0 {
		o.MaxPages = DefaultMaxPages
	}
	if o.MaxTags <= 0 {
		o.MaxTags = DefaultMaxTags
	}
	if o.ListTimeout <= 0 {
		o.ListTimeout = DefaultListTimeout
	}
	if o.Keychain == nil {
		o.Keychain = authn.DefaultKeychain
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

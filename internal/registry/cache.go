package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/drvcheck/drvcheck/internal/fileerr"
)

// cacheEntry is one repository's listing on disk, with the platforms of
// the tags whose index a run read (Lister.Platforms), by tag.
type cacheEntry struct {
	Repository string                     `json:"repository"`
	Fetched    time.Time                  `json:"fetched"`
	Tags       []string                   `json:"tags"`
	Platforms  map[string]cachedPlatforms `json:"platforms,omitempty"`
}

// cachedPlatforms are one tag's architectures, and when they were read:
// a tag may be pushed again with more of them, so they age as a listing
// does.
type cachedPlatforms struct {
	Arches  []string  `json:"arches"`
	Fetched time.Time `json:"fetched"`
}

// platforms of a nil entry are none.
func (e *cacheEntry) platforms() map[string]cachedPlatforms {
	if e == nil {
		return nil
	}
	return e.Platforms
}

// cache keeps listings in dir/tags, one JSON file per repository.
type cache struct{ dir string }

// DefaultCacheDir is drvcheck's folder under the user cache folder
// ($XDG_CACHE_HOME or ~/.cache on Linux); empty when there is none.
func DefaultCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "drvcheck")
}

// path names the file of repo: readable, and unique by its hash.
func (c *cache) path(repo string) string {
	sum := sha256.Sum256([]byte(repo))
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		return '_'
	}, repo)
	if len(safe) > 100 {
		safe = safe[:100]
	}
	return filepath.Join(c.dir, "tags", safe+"-"+hex.EncodeToString(sum[:6])+".json")
}

// read returns the entry of repo, nil when there is none.
func (c *cache) read(repo string) (*cacheEntry, error) {
	p := c.path(repo)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cache %s: %w", p, fileerr.Reason(err))
	}
	var e cacheEntry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("cache %s: %v", p, err)
	}
	if e.Repository != repo {
		return nil, fmt.Errorf("cache %s: holds %q, not %q", p, e.Repository, repo)
	}
	return &e, nil
}

// write stores e atomically: a temporary file in the same folder, synced,
// then renamed over the old one, so a crash leaves the old entry or the new
// one and never half of one.
func (c *cache) write(e cacheEntry) (err error) {
	p := c.path(e.Repository)
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cache %s: %w", dir, fileerr.Reason(err))
	}
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tags-*.tmp")
	if err != nil {
		return fmt.Errorf("cache %s: %w", dir, fileerr.Reason(err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("cache %s: %w", tmp.Name(), err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("cache %s: %w", tmp.Name(), err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("cache %s: %w", tmp.Name(), err)
	}
	if err = os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("cache %s: %w", p, fileerr.Reason(err))
	}
	return nil
}

// fresh reports whether an entry fetched at f is younger than ttl at now.
// An entry from the future (a clock set back) is not trusted.
func fresh(f, now time.Time, ttl time.Duration) bool {
	age := now.Sub(f)
	return age < ttl && age > -time.Minute
}

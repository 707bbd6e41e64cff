// Package catalog holds the precompiled driver image tags that really exist,
// as the union of every configured source: support-matrix CSV files and
// registry repositories. A tag counts as present when any source has it.
// Check is the one place that decides whether a node's image exists, and
// Blame says which part of a missing tag no source has.
package catalog

import (
	"slices"
	"strings"
	"time"

	"github.com/drvcheck/drvcheck/internal/imageref"
)

// Catalog is the union of the tags of several sources.
type Catalog struct {
	sources []string
	cached  []Cached            // sources answered from the cache, not the registry
	tags    map[string][]string // tag -> names of the sources that have it
	// pairs holds, for every tag, each two of its three parts, so that a
	// missing tag can be blamed on the part no source has with the others.
	pairs map[pair]bool
	// versions are the first parts of the tags: a branch, or the full
	// version a registry of one's own may tag precompiled images with.
	versions map[string]bool
	// repos are the tags by repository, of the sources that say which
	// repository they list: registries, and matrices of whole references.
	// The driver pod's other images are looked for only there.
	repos       map[string]map[string][]string
	repoSources map[string][]string
	newest      newest // built on first use (newest.go)
	arches      arches // from matrices with an arch column (arch.go)
}

type pair struct{ part, a, b string }

// New returns an empty catalog with no source configured.
func New() *Catalog {
	return &Catalog{tags: map[string][]string{}, pairs: map[pair]bool{}, versions: map[string]bool{}, repos: map[string]map[string][]string{}, repoSources: map[string][]string{}}
}

// HasOSTag says whether some source holds a tag for the OS tag t (one
// that ends -t): an image built for an OS NVIDIA publishes none for.
func (c *Catalog) HasOSTag(t string) bool {
	for tag := range c.tags {
		if strings.HasSuffix(tag, "-"+t) {
			return true
		}
	}
	return false
}

// HasVersion says whether some source holds a tag that starts with the
// driver version v (550, or 535.104.05).
func (c *Catalog) HasVersion(v string) bool { return c.versions[v] }

// Add records the tags of one source, named as messages should show it.
func (c *Catalog) Add(source string, tags []string) {
	c.sources = append(c.sources, source)
	for _, t := range tags {
		if have := c.tags[t]; !slices.Contains(have, source) {
			c.tags[t] = append(have, source)
		}
		if v, ok := imageref.TagVersion(t); ok {
			c.versions[v] = true
		}
		if branch, kernel, osTag, ok := imageref.SplitDriverTag(t); ok {
			c.pairs[pair{Kernel, branch, osTag}] = true
			c.pairs[pair{Branch, kernel, osTag}] = true
			c.pairs[pair{OS, branch, kernel}] = true
		}
	}
}

// AddRepository records the tags source lists for repository: a
// registry's listing, whose tags count for the driver's too (Add), or
// whole references of a matrix (AddImages).
func (c *Catalog) AddRepository(source, repository string, tags []string) {
	c.Add(source, tags)
	c.addTo(source, repository, tags)
}

// AddImages records whole references, repository:tag, that source says
// exist; they count only for their repository.
func (c *Catalog) AddImages(source string, refs []imageref.Ref) {
	c.sources = append(c.sources, source)
	for _, ref := range refs {
		c.addTo(source, ref.Repository, []string{ref.Tag})
	}
}

func (c *Catalog) addTo(source, repository string, tags []string) {
	if !slices.Contains(c.repoSources[repository], source) {
		c.repoSources[repository] = append(c.repoSources[repository], source)
	}
	m := c.repos[repository]
	if m == nil {
		m = map[string][]string{}
		c.repos[repository] = m
	}
	for _, t := range tags {
		if have := m[t]; !slices.Contains(have, source) {
			m[t] = append(have, source)
		}
	}
}

// CheckImage looks up repository:tag in the sources that list
// repository; none does: not checked.
func (c *Catalog) CheckImage(repository, tag string) Verdict {
	m, ok := c.repos[repository]
	if tag == "" || !ok {
		return Verdict{}
	}
	have := m[tag]
	return Verdict{Checked: true, Present: len(have) > 0, Sources: slices.Clone(have)}
}

// CheckRef is the verdict on a driver image: the sources of tags, else
// those that list whole references of repository (an image matrix).
func (c *Catalog) CheckRef(repository, tag string) Verdict {
	v := c.Check(tag)
	if w := c.CheckImage(repository, tag); !v.Present && w.Present {
		return w
	}
	return v
}

// SourcesOf names the sources that list repository, in the order added.
func (c *Catalog) SourcesOf(repository string) []string {
	return slices.Clone(c.repoSources[repository])
}

// Cached is a source whose tags came from drvcheck's cache.
type Cached struct {
	Source  string
	Fetched time.Time
}

// AddCached records the tags of a source read from the cache, listed on
// fetched.
func (c *Catalog) AddCached(source, repository string, tags []string, fetched time.Time) {
	c.AddRepository(source, repository, tags)
	c.cached = append(c.cached, Cached{Source: source, Fetched: fetched})
}

// Doubtful lists the cached sources when one of tags (or of whole
// references, repository:tag) is in no source: a
// cached listing only says a tag existed, and the image may have been
// pushed since. None when every tag is present or no source was cached.
func (c *Catalog) Doubtful(refs []imageref.Ref) []Cached {
	if len(c.cached) == 0 {
		return nil
	}
	for _, r := range refs {
		v := c.Check(r.Tag)
		if r.Repository != "" {
			v = c.CheckImage(r.Repository, r.Tag)
		}
		if v.Checked && !v.Present {
			return slices.Clone(c.cached)
		}
	}
	return nil
}

// Configured reports whether any source was added.
func (c *Catalog) Configured() bool { return len(c.sources) > 0 }

// Sources names the configured sources in the order they were added.
func (c *Catalog) Sources() []string { return slices.Clone(c.sources) }

// Describe joins the source names for messages, e.g. "a.csv, nvcr.io/nvidia/driver".
func (c *Catalog) Describe() string { return strings.Join(c.sources, ", ") }

// Verdict is whether an image tag exists.
type Verdict struct {
	// Checked is false when there is no tag or no source to look in: then
	// nothing is known, and Present is false too.
	Checked bool
	Present bool
	Sources []string // the sources that have the tag
}

// Check looks tag up in every source.
func (c *Catalog) Check(tag string) Verdict {
	if tag == "" || !c.Configured() {
		return Verdict{}
	}
	have := c.tags[tag]
	return Verdict{Checked: true, Present: len(have) > 0, Sources: slices.Clone(have)}
}

// The parts of a tag a missing image is blamed on.
const (
	Branch = "branch"
	Kernel = "kernel"
	OS     = "os"
)

// Blame names the part of a missing tag that no source has together with
// the other two: Kernel when some source has the branch for this OS with
// another kernel (a kernel bump, the common case), Branch when it has the
// kernel and OS for another branch, OS when it has branch and kernel for
// another OS. With none of these, the kernel is blamed: it is the part that
// changes most often.
func (c *Catalog) Blame(branch, kernel, osTag string) string {
	switch {
	case c.pairs[pair{Kernel, branch, osTag}]:
		return Kernel
	case c.pairs[pair{Branch, kernel, osTag}]:
		return Branch
	case c.pairs[pair{OS, branch, kernel}]:
		return OS
	}
	return Kernel
}

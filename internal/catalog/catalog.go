// Package catalog holds the precompiled driver image tags that really exist,
// as the union of every configured source: support-matrix CSV files and
// registry repositories. A tag counts as present when any source has it.
package catalog

import (
	"slices"
	"strings"
)

// Catalog is the union of the tags of several sources.
type Catalog struct {
	sources []string
	tags    map[string][]string // tag -> names of the sources that have it
}

// New returns an empty catalog with no source configured.
func New() *Catalog { return &Catalog{tags: map[string][]string{}} }

// Add records the tags of one source, named as messages should show it.
func (c *Catalog) Add(source string, tags []string) {
	c.sources = append(c.sources, source)
	for _, t := range tags {
		if have := c.tags[t]; !slices.Contains(have, source) {
			c.tags[t] = append(have, source)
		}
	}
}

// Configured reports whether any source was added.
func (c *Catalog) Configured() bool { return len(c.sources) > 0 }

// Sources names the configured sources in the order they were added.
func (c *Catalog) Sources() []string { return slices.Clone(c.sources) }

// Describe joins the source names for messages, e.g. "a.csv, nvcr.io/nvidia/driver".
func (c *Catalog) Describe() string { return strings.Join(c.sources, ", ") }

// Lookup returns the sources that have tag; none means it is missing.
func (c *Catalog) Lookup(tag string) []string { return c.tags[tag] }

// Len is the number of distinct tags.
func (c *Catalog) Len() int { return len(c.tags) }

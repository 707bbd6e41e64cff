package catalog

import (
	"sync"

	"github.com/drvcheck/drvcheck/internal/imageref"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
)

// newestKey is a line of precompiled builds: one branch, OS tag, Ubuntu
// kernel series and flavour.
type newestKey struct{ branch, osTag, series, flavour string }

// newest indexes, once the catalog is read, the newest kernel each line
// of builds has a tag for: NVIDIA builds for a new kernel days after its
// release, so a missing tag of a kernel newer than that is "not published
// yet", and one older a kernel the node could move to.
type newest struct {
	once sync.Once
	m    map[newestKey]kernelOf
}

// kernelOf is a kernel release as written and in its parts.
type kernelOf struct {
	name  string
	parts nodefacts.UbuntuKernel
}

// NewestKernel is the newest kernel of the same branch, OS tag, series and
// flavour as tag's that some source has a precompiled tag for; "" when
// none has, or tag is not a precompiled tag of an Ubuntu kernel.
func (c *Catalog) NewestKernel(tag string) string {
	branch, kernel, osTag, ok := imageref.SplitDriverTag(tag)
	k, ok2 := nodefacts.ParseUbuntuKernel(kernel)
	if !ok || !ok2 {
		return ""
	}
	c.newest.once.Do(c.indexNewest)
	return c.newest.m[newestKey{branch, osTag, k.Series, k.Flavour}].name
}

// indexNewest walks the tags once.
func (c *Catalog) indexNewest() {
	m := map[newestKey]kernelOf{}
	for t := range c.tags {
		branch, kernel, osTag, ok := imageref.SplitDriverTag(t)
		k, ok2 := nodefacts.ParseUbuntuKernel(kernel)
		if !ok || !ok2 {
			continue
		}
		key := newestKey{branch, osTag, k.Series, k.Flavour}
		if have, ok := m[key]; !ok || k.Compare(have.parts) > 0 {
			m[key] = kernelOf{kernel, k}
		}
	}
	c.newest.m = m
}

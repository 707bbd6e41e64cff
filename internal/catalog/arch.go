package catalog

import "slices"

// arches are the architectures the matrices with an arch column give
// each tag, and those matrices.
type arches struct {
	by      map[string][]string // tag -> architectures
	sources map[string]bool     // matrices with the column
}

// addArches records the rows' architectures when source's matrix has the
// column (every row then has one).
func (c *Catalog) addArches(source string, rows []Row) {
	if len(rows) == 0 || rows[0].Arch == "" {
		return
	}
	if c.arches.by == nil {
		c.arches = arches{by: map[string][]string{}, sources: map[string]bool{}}
	}
	c.arches.sources[source] = true
	for _, r := range rows {
		t := r.Tag()
		if !slices.Contains(c.arches.by[t], r.Arch) {
			c.arches.by[t] = append(c.arches.by[t], r.Arch)
			slices.Sort(c.arches.by[t])
		}
	}
}

// Arches are the architectures the matrices say tag is built for; nil
// when a source that lists the tag says nothing of them (a matrix without
// the column, a registry's listing), or none lists it.
func (c *Catalog) Arches(tag string) []string {
	have := c.tags[tag]
	if len(have) == 0 || slices.ContainsFunc(have, func(src string) bool { return !c.arches.sources[src] }) {
		return nil
	}
	return slices.Clone(c.arches.by[tag])
}

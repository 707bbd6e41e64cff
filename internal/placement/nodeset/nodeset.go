// Package nodeset holds sets of nodes, and a number per node, by the
// nodes' number in a model's order (internal/placement): what a
// simulation keeps per node, cheap to clone.
package nodeset

import (
	"math/bits"
	"slices"
)

// Set is a set of nodes by their number in the model's order, a bit
// each: a Sim keeps the nodes that hold less than as read (a pod or GPU
// request left and did not come back), those that hold more or less, the
// cordoned ones, and per request the ones found full. Kept exact as pods
// move, the first stays small on a fleet that refills, and all are cheap
// to clone.
type Set []uint64

// Add puts node i in the set.
func (f *Set) Add(i int) {
	for len(*f) <= i/64 {
		*f = append(*f, 0)
	}
	(*f)[i/64] |= 1 << (i % 64)
}

// Put adds node i when in, else removes it.
func (f *Set) Put(i int, in bool) {
	if in {
		f.Add(i)
	} else {
		f.Remove(i)
	}
}

// Has says whether node i is in the set.
func (f Set) Has(i int) bool { return i/64 < len(f) && f[i/64]&(1<<(i%64)) != 0 }

// Remove takes node i out of the set.
func (f Set) Remove(i int) {
	if i/64 < len(f) {
		f[i/64] &^= 1 << (i % 64)
	}
}

// AddAll adds g's members that are in none of without: a search's
// candidates are one set, so that the nodes it must skip (a quarter of the
// fleet cordoned by a rollout) are skipped 64 at a time.
func (f *Set) AddAll(g Set, without ...Set) {
	if len(*f) < len(g) {
		*f = append(*f, make(Set, len(g)-len(*f))...)
	}
	for i, w := range g {
		for _, x := range without {
			if i < len(x) {
				w &^= x[i]
			}
		}
		(*f)[i] |= w
	}
}

// Into is f's members that are in within and in none of without, written
// over dst's memory: a search takes a set of the nodes with room freed,
// and a new one each time was a fifth of a rollout's allocations.
func (f Set) Into(dst, within Set, without ...Set) Set {
	dst = append(dst[:0], f[:min(len(f), len(within))]...)
	for i := range dst {
		dst[i] &= within[i]
	}
	for _, g := range without {
		for i := range min(len(dst), len(g)) {
			dst[i] &^= g[i]
		}
	}
	return dst
}

// Count is the number of f's members that are in none of without: a
// failed search words its reason over every node it may use, and the
// nodes nothing changed count per reason 64 at a time.
func (f Set) Count(without ...Set) int {
	n := 0
	for i, w := range f {
		for _, g := range without {
			if i < len(g) {
				w &^= g[i]
			}
		}
		n += bits.OnesCount64(w)
	}
	return n
}

// CountIn is the number of f's members that are in g.
func (f Set) CountIn(g Set) int {
	n := 0
	for i := range min(len(f), len(g)) {
		n += bits.OnesCount64(f[i] & g[i])
	}
	return n
}

// Members walks the set's members that are in global (a placement's
// eligible nodes numbered in the model's order, so ascending), as
// positions in it, from the member at or after i, wrapping around. It is
// lazy: most searches stop at the first node with room, and a set of
// thousands of members listed whole per search made a rollout quadratic.
// A member is found by bisection: a table from every node to its
// position would cost the whole fleet per placement.
type Members struct {
	word   func(int) uint64
	global []int32
	spans  [2][2]int // [from, to) bit ranges, walked in turn
	span   int
	at     int // the next bit to look at in the current span
}

// Members walks f's members in global from i (Members).
func (f Set) Members(i int, global []int32) *Members {
	return Lazy(len(f), func(w int) uint64 { return f[w] }, i, global)
}

// Lazy walks as Members does the members of a set of words words that
// word makes one at a time, when asked: a search's candidates are a union
// and difference of a few sets, and making all of them for every search,
// to test the first few, grew with the fleet.
func Lazy(words int, word func(int) uint64, i int, global []int32) *Members {
	end := words * 64
	i = min(i, end)
	return &Members{word: word, global: global, spans: [2][2]int{{i, end}, {0, i}}, at: i}
}

// Next returns the next member's position, or false when none is left.
func (m *Members) Next() (int, bool) {
	for m.span < len(m.spans) {
		to := m.spans[m.span][1]
		for m.at < to {
			word := m.word(m.at/64) >> (m.at % 64)
			if word == 0 {
				m.at = (m.at/64 + 1) * 64
				continue
			}
			j := m.at + bits.TrailingZeros64(word)
			if j >= to {
				break
			}
			m.at = j + 1
			if pos, ok := slices.BinarySearch(m.global, int32(j)); ok {
				return pos, true
			}
		}
		m.span++
		if m.span < len(m.spans) {
			m.at = m.spans[m.span][0]
		}
	}
	return 0, false
}

// Word is f's word w (nodes 64w to 64w+63), 0 past its end.
func (f Set) Word(w int) uint64 {
	if w < len(f) {
		return f[w]
	}
	return 0
}

// Stamps holds a number per node, by the model's order, in pages of 64
// allocated as nodes change: check drains each node a budget blocks in a
// Sim of its own, which changes a few nodes, and a whole slice per Sim
// was 170 MB on a fleet of 5,000 nodes.
type Stamps struct {
	pages [][]uint64
	// owned are the pages this side may write: a page Share left to both
	// sides is copied before either writes to it, so that a clone costs
	// a pointer per page, not the pages (a rollout clones its simulation
	// for every node a budget blocks).
	owned []bool
}

const stampPage = 64

// At is node i's stamp; 0 when it never changed.
func (st Stamps) At(i int) uint64 {
	if p := i / stampPage; p < len(st.pages) && st.pages[p] != nil {
		return st.pages[p][i%stampPage]
	}
	return 0
}

// Set gives node i the stamp v.
func (st *Stamps) Set(i int, v uint64) {
	p := i / stampPage
	if p >= len(st.pages) {
		st.pages = append(st.pages, make([][]uint64, p+1-len(st.pages))...)
		st.owned = append(st.owned, make([]bool, p+1-len(st.owned))...)
	}
	switch {
	case st.pages[p] == nil:
		st.pages[p] = make([]uint64, stampPage)
	case !st.owned[p]:
		st.pages[p] = slices.Clone(st.pages[p])
	}
	st.owned[p] = true
	st.pages[p][i%stampPage] = v
}

// Share returns stamps equal to st that share its pages until either
// side writes to one.
func (st *Stamps) Share() Stamps {
	clear(st.owned)
	return Stamps{pages: slices.Clone(st.pages), owned: make([]bool, len(st.pages))}
}

// Package nodeset holds sets of nodes, and a number per node, by the
// nodes' number in a model's order (internal/placement): what a
// simulation keeps per node, cheap to clone.
package nodeset

import (
	"math/bits"
	"slices"
	"sync/atomic"
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
	if n, had := i/64+1, len(*f); had < n {
		*f = slices.Grow(*f, n-had)[:n] // once, not a word at a time
		clear((*f)[had:])               // a reused slice's old words
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
	word func(int) uint64
	// next is the first word at or after w that may hold a member: a walk
	// skips the empty ones without making them. A search that finds no
	// node met every word of the fleet, and check's drains of every node
	// a budget blocks search in thousands of simulations.
	next   func(w int) int
	global []int32
	spans  [2][2]int // [from, to) bit ranges, walked in turn
	span   int
	at     int // the next bit to look at in the current span
}

// Members walks f's members in global from i (Members).
func (f Set) Members(i int, global []int32) *Members {
	return Lazy(len(f), func(w int) uint64 { return f[w] }, func(w int) int { return f.NextWord(w, len(f)) }, i, global)
}

// Lazy walks as Members does the members of a set of words words that
// word makes one at a time, when asked: a search's candidates are a union
// and difference of a few sets, and making all of them for every search,
// to test the first few, grew with the fleet. next(w) is the first word
// at or after w that may hold a member (words when none may).
func Lazy(words int, word func(int) uint64, next func(int) int, i int, global []int32) *Members {
	end := words * 64
	i = min(i, end)
	return &Members{word: word, next: next, global: global, spans: [2][2]int{{i, end}, {0, i}}, at: i}
}

// NextWord is the first of f's words at or after w that has a member, or
// none when there is none.
func (f Set) NextWord(w, none int) int {
	for ; w < len(f); w++ {
		if f[w] != 0 {
			return w
		}
	}
	return none
}

// Next returns the next member's position, or false when none is left.
func (m *Members) Next() (int, bool) {
	for m.span < len(m.spans) {
		to := m.spans[m.span][1]
		for m.at < to {
			word := m.word(m.at/64) >> (m.at % 64)
			if word == 0 {
				m.at = m.next(m.at/64+1) * 64
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
// made as nodes change, 16 pages to a block: check drains each node a
// budget blocks in a Sim of its own, which changes a few nodes. A whole
// slice per Sim was 170 MB on a fleet of 5,000 nodes; a table of every
// page per Sim, a pointer and a flag per 64 nodes, grew with the square
// of the fleet (12 MB at 5,000 nodes, 74 MB at 15,000). A Sim now copies a
// pointer per 1,024 nodes, and a block and a page for each it writes.
type Stamps struct {
	blocks []*stampBlock
	// side names this side of a Share: a block or a page of another side
	// is copied before this side writes to it, so that a clone costs its
	// table, not the pages (a rollout clones its simulation for every
	// node a budget blocks).
	side uint64
}

type stampBlock struct {
	side  uint64
	pages [blockPages]*stampPage
}

type stampPage struct {
	side   uint64
	stamps [pageStamps]uint64
}

const (
	pageStamps = 64
	blockPages = 16
	blockNodes = pageStamps * blockPages
)

// sides numbers the sides of every Share; 0 is no side's.
var sides atomic.Uint64

// At is node i's stamp; 0 when it never changed.
func (st Stamps) At(i int) uint64 {
	if b := i / blockNodes; b < len(st.blocks) && st.blocks[b] != nil {
		if p := st.blocks[b].pages[i/pageStamps%blockPages]; p != nil {
			return p.stamps[i%pageStamps]
		}
	}
	return 0
}

// Set gives node i the stamp v.
func (st *Stamps) Set(i int, v uint64) {
	if st.side == 0 {
		st.side = sides.Add(1)
	}
	b := i / blockNodes
	if b >= len(st.blocks) {
		st.blocks = append(st.blocks, make([]*stampBlock, b+1-len(st.blocks))...)
	}
	blk := st.blocks[b]
	switch {
	case blk == nil:
		blk = &stampBlock{side: st.side}
	case blk.side != st.side:
		c := *blk
		c.side, blk = st.side, &c
	}
	st.blocks[b] = blk
	j := i / pageStamps % blockPages
	p := blk.pages[j]
	switch {
	case p == nil:
		p = &stampPage{side: st.side}
	case p.side != st.side:
		c := *p
		c.side, p = st.side, &c
	}
	blk.pages[j] = p
	p.stamps[i%pageStamps] = v
}

// Share returns stamps equal to st that share its blocks and pages until
// either side writes to one: both sides take new names, and what either
// wrote before is neither's to write.
func (st *Stamps) Share() Stamps {
	st.side = sides.Add(1)
	return Stamps{blocks: slices.Clone(st.blocks), side: sides.Add(1)}
}

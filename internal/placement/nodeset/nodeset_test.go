package nodeset

import (
	"slices"
	"testing"
)

// Shared stamps are each side's own once written, whichever side writes
// first, and a node never stamped reads 0 however far its page is from
// the pages allocated.
func TestStampsShareApart(t *testing.T) {
	var a Stamps
	a.Set(3, 7)
	a.Set(200, 9)
	b := a.Share()
	b.Set(3, 8)
	b.Set(4999, 1)
	a.Set(201, 5) // a's page 3, shared with b, is copied before a writes
	c := b.Share()
	c.Set(3, 6)
	for _, c := range []struct {
		st   Stamps
		i    int
		want uint64
	}{{a, 3, 7}, {a, 200, 9}, {a, 201, 5}, {a, 4999, 0}, {a, 64, 0}, {b, 3, 8}, {b, 200, 9}, {b, 201, 0}, {b, 4999, 1}, {b, 100000, 0}, {c, 3, 6}, {c, 4999, 1}, {c, 201, 0}} {
		if got := c.st.At(c.i); got != c.want {
			t.Errorf("At(%d) = %d, want %d", c.i, got, c.want)
		}
	}
}

// Into keeps f's members in within and in none of without, over dst's
// memory, whatever dst held.
func TestInto(t *testing.T) {
	var f, within, a, b Set
	for _, i := range []int{1, 2, 3, 70, 130} {
		f.Add(i)
	}
	for _, i := range []int{1, 2, 3, 70} {
		within.Add(i)
	}
	a.Add(2)
	b.Add(70)
	dst := Set{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
	got := f.Into(dst, within, a, b)
	for i := range 200 {
		if want := i == 1 || i == 3; got.Has(i) != want {
			t.Errorf("Has(%d) = %v", i, got.Has(i))
		}
	}
	if &got[0] != &dst[0] {
		t.Errorf("Into did not reuse dst")
	}
}

func TestAddAll(t *testing.T) {
	var f, g, full, cordoned Set
	f.Add(5)
	for _, i := range []int{1, 64, 65, 200} {
		g.Add(i)
	}
	full.Add(64)
	cordoned.Add(200)
	cordoned.Add(1000) // past g: nothing to take out
	f.AddAll(g, full, cordoned)
	for i := range 300 {
		if want := i == 5 || i == 1 || i == 65; f.Has(i) != want {
			t.Errorf("Has(%d) = %v", i, f.Has(i))
		}
	}
	if g.Has(200) != true || full.Has(64) != true {
		t.Error("AddAll changed its arguments")
	}
}

// Count and CountIn count members across words and sets of any length,
// as a walk of every member would.
func TestCount(t *testing.T) {
	var f, short, long Set
	for _, i := range []int{0, 5, 63, 64, 127, 128, 300} {
		f.Add(i)
	}
	short.Add(5)
	long.Add(128)
	long.Add(300)
	long.Add(900)
	walk := func(in func(int) bool) int {
		n := 0
		for i := range 1000 {
			if f.Has(i) && in(i) {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"Count()", f.Count(), 7},
		{"Count(short, long)", f.Count(short, long), walk(func(i int) bool { return !short.Has(i) && !long.Has(i) })},
		{"CountIn(long)", f.CountIn(long), walk(long.Has)},
		{"CountIn(short)", f.CountIn(short), walk(short.Has)},
		{"CountIn(nil)", f.CountIn(nil), 0},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

// Stamps written in blocks far apart, and the same page written by both
// sides of a Share, stay each side's own.
func TestStampsShareAcrossBlocks(t *testing.T) {
	var a Stamps
	a.Set(70000, 2)
	d := a.Share()
	d.Set(70001, 3)
	a.Set(70000, 4)
	a.Set(1023, 5) // block 0, which neither had
	for _, c := range []struct {
		st   Stamps
		i    int
		want uint64
	}{{a, 70000, 4}, {a, 70001, 0}, {a, 1023, 5}, {d, 70000, 2}, {d, 70001, 3}, {d, 1023, 0}} {
		if got := c.st.At(c.i); got != c.want {
			t.Errorf("At(%d) = %d, want %d", c.i, got, c.want)
		}
	}
	if len(d.blocks) != 70001/blockNodes+1 {
		t.Errorf("a stamp at node 70,001 takes %d blocks, want %d", len(d.blocks), 70001/blockNodes+1)
	}
}

// A walk skips the empty words and still meets every member, in order
// from where it starts, wrapping around.
func TestMembersSkipEmptyWords(t *testing.T) {
	var f Set
	members := []int{3, 64, 65, 700, 4095, 9000}
	for _, i := range members {
		f.Add(i)
	}
	global := make([]int32, 10000) // every node eligible: a position is its number
	for i := range global {
		global[i] = int32(i)
	}
	for _, start := range []int{0, 4, 65, 701, 9000, 9999} {
		var got, want []int
		for _, i := range members {
			if i >= start {
				want = append(want, i)
			}
		}
		for _, i := range members {
			if i < start {
				want = append(want, i)
			}
		}
		m := f.Members(start, global)
		for pos, ok := m.Next(); ok; pos, ok = m.Next() {
			got = append(got, pos)
		}
		if !slices.Equal(got, want) {
			t.Errorf("from %d: %v, want %v", start, got, want)
		}
	}
}

// Add past the end of a set made over reused memory (Into) clears the
// words it adds.
func TestAddClearsReusedWords(t *testing.T) {
	dst := Set{^uint64(0), ^uint64(0), ^uint64(0)}
	f := Set{1}.Into(dst, Set{1})
	f.Add(130)
	if f.Has(64) || f.Has(129) || !f.Has(130) || !f.Has(0) {
		t.Errorf("Add(130) over reused words: %b", f)
	}
}

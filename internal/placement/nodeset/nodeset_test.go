package nodeset

import "testing"

// A clone's stamps are its own, and a node never stamped reads 0 however
// far its page is from the pages allocated.
func TestStampsCloneApart(t *testing.T) {
	var a Stamps
	a.Set(3, 7)
	a.Set(200, 9)
	b := a.Clone()
	b.Set(3, 8)
	b.Set(4999, 1)
	for _, c := range []struct {
		st   Stamps
		i    int
		want uint64
	}{{a, 3, 7}, {a, 200, 9}, {a, 4999, 0}, {a, 64, 0}, {b, 3, 8}, {b, 200, 9}, {b, 4999, 1}, {b, 100000, 0}} {
		if got := c.st.At(c.i); got != c.want {
			t.Errorf("At(%d) = %d, want %d", c.i, got, c.want)
		}
	}
}

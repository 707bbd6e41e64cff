package plan

import "testing"

// The reference's worked examples of GetUpgradesAvailable (§2.2), Helm's
// defaults maxParallel 1 and maxUnavailable 25% unless said.
func TestWindow(t *testing.T) {
	for _, c := range []struct {
		name string
		w    window
		want int
	}{
		{"4 nodes: 1 at a time", window{total: 4, required: 4, maxParallel: 1, maxUnavailable: 1}, 1},
		{"4 nodes, one NotReady: nothing starts", window{total: 4, required: 4, unavailable: 1, maxParallel: 1, maxUnavailable: 1}, 0},
		{"10 nodes, maxParallel 0: 3", window{total: 10, required: 10, maxParallel: 0, maxUnavailable: 3}, 3},
		{"10 nodes, maxParallel 0, one cordoned: 2", window{total: 10, required: 10, unavailable: 1, maxParallel: 0, maxUnavailable: 3}, 2},
		{"maxParallel 3, one failed holds a slot: 2", window{total: 10, required: 9, inProgress: 1, unavailable: 1, maxParallel: 3, maxUnavailable: 10}, 2},
		{"no maxUnavailable: every node", window{total: 3, required: 3, unavailable: 1, maxParallel: 0, maxUnavailable: 3}, 3},
		{"slots full", window{total: 10, required: 8, inProgress: 2, unavailable: 2, maxParallel: 2, maxUnavailable: 3}, 0},
	} {
		if got := c.w.available(); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

package operator

import "testing"

// The reference's worked examples of GetUpgradesAvailable (§2.2), Helm's
// defaults MaxParallel 1 and MaxUnavailable 25% unless said.
func TestWindow(t *testing.T) {
	for _, c := range []struct {
		name string
		w    Window
		want int
	}{
		{"4 nodes: 1 at a time", Window{Total: 4, Required: 4, MaxParallel: 1, MaxUnavailable: 1}, 1},
		{"4 nodes, one NotReady: nothing starts", Window{Total: 4, Required: 4, Unavailable: 1, MaxParallel: 1, MaxUnavailable: 1}, 0},
		{"10 nodes, MaxParallel 0: 3", Window{Total: 10, Required: 10, MaxParallel: 0, MaxUnavailable: 3}, 3},
		{"10 nodes, MaxParallel 0, one cordoned: 2", Window{Total: 10, Required: 10, Unavailable: 1, MaxParallel: 0, MaxUnavailable: 3}, 2},
		{"MaxParallel 3, one failed holds a slot: 2", Window{Total: 10, Required: 9, InProgress: 1, Unavailable: 1, MaxParallel: 3, MaxUnavailable: 10}, 2},
		{"no MaxUnavailable: every node", Window{Total: 3, Required: 3, Unavailable: 1, MaxParallel: 0, MaxUnavailable: 3}, 3},
		{"slots full", Window{Total: 10, Required: 8, InProgress: 2, Unavailable: 2, MaxParallel: 2, MaxUnavailable: 3}, 0},
	} {
		if got := c.w.Available(); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

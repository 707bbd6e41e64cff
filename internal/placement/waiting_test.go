package placement

import (
	"slices"
	"testing"

	"github.com/drvcheck/drvcheck/internal/drain"
)

// A clone's queue is its parent's at the clone and what it adds after;
// neither sees what the other adds or lands, at any depth of cloning.
func TestWaitingClonesKeepTheirOwnQueue(t *testing.T) {
	pods := make([]*drain.Pod, 7)
	for i := range pods {
		pods[i] = &drain.Pod{Name: string(rune('a' + i))}
	}
	queue := func(w *waiting, land string) string {
		var out []byte
		w.visit(func(p *drain.Pod, _ int32, _ bool) (bool, bool) {
			out = append(out, p.Name...)
			return p.Name == land, false
		})
		return string(out)
	}
	var parent waiting
	parent.enqueue(1, pods[0])
	parent.enqueue(spreadList, pods[1])
	parent.enqueue(2, pods[2])

	c := parent.clone()
	c.enqueue(1, pods[3])
	c.enqueue(spreadList, pods[4])
	parent.enqueue(1, pods[5])
	grand := c.clone()
	grand.enqueue(2, pods[6])

	for _, tc := range []struct {
		name string
		w    *waiting
		want string
	}{
		{"parent", &parent, "abcf"},
		{"clone", &c, "abcde"},
		{"clone of the clone", &grand, "abcdeg"},
	} {
		if got := queue(tc.w, ""); got != tc.want {
			t.Errorf("%s waits %q, want %q in queue order", tc.name, got, tc.want)
		}
	}
	// A pod that lands in the clone leaves its queue only.
	if got := queue(&c, "a"); got != "abcde" {
		t.Fatalf("clone offered %q", got)
	}
	if got, want := queue(&c, ""), "bcde"; got != want {
		t.Errorf("after a landed in the clone it waits %q, want %q", got, want)
	}
	if got, want := queue(&parent, ""), "abcf"; got != want {
		t.Errorf("the parent waits %q after the clone's landing, want %q", got, want)
	}
	if got, want := queue(&grand, ""), "abcdeg"; got != want {
		t.Errorf("the clone's clone waits %q, want %q", got, want)
	}
	// Once visited a clone adds to lists of its own.
	c.enqueue(1, pods[6])
	if got, want := queue(&c, ""), "bcdeg"; got != want || slices.ContainsFunc(parent.queue(1).q, func(x waiter) bool { return x.pod == pods[6] }) {
		t.Errorf("the clone waits %q (want %q); the parent's list %v", got, want, parent.queue(1).q)
	}
	// The parent goes on adding in place: no clone sees it.
	parent.enqueue(1, pods[4])
	if got, want := queue(&c, ""), "bcdeg"; got != want {
		t.Errorf("after the parent added, the clone waits %q, want %q", got, want)
	}
	if got, want := queue(&parent, ""), "abcfe"; got != want {
		t.Errorf("the parent waits %q, want %q", got, want)
	}
}

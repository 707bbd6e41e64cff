package placement

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/drain/draintest"
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
		w.visit(func(int32, queue) bool { return true }, func(p *drain.Pod, _ int32) (bool, bool) {
			out = append(out, p.Name...)
			return p.Name == land, false
		})
		return string(out)
	}
	var parent waiting
	parent.enqueue(1, pods[0], failAt{})
	parent.enqueue(spreadList, pods[1], failAt{})
	parent.enqueue(2, pods[2], failAt{})

	c := parent.clone()
	c.enqueue(1, pods[3], failAt{})
	c.enqueue(spreadList, pods[4], failAt{})
	parent.enqueue(1, pods[5], failAt{})
	grand := c.clone()
	grand.enqueue(2, pods[6], failAt{})

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
	c.enqueue(1, pods[6], failAt{})
	if got, want := queue(&c, ""), "bcdeg"; got != want || slices.ContainsFunc(parent.queue(1).q, func(x waiter) bool { return x.pod == pods[6] }) {
		t.Errorf("the clone waits %q (want %q); the parent's list %v", got, want, parent.queue(1).q)
	}
	// The parent goes on adding in place: no clone sees it.
	parent.enqueue(1, pods[4], failAt{})
	if got, want := queue(&c, ""), "bcdeg"; got != want {
		t.Errorf("after the parent added, the clone waits %q, want %q", got, want)
	}
	if got, want := queue(&parent, ""), "abcfe"; got != want {
		t.Errorf("the parent waits %q, want %q", got, want)
	}
}

// An uncordoned node takes the waiting pods it has room for in queue
// order, past one its anti-affinity refuses: here w, emptied of its bare
// pods, takes web-0 and then zz-0, while web-1 and web-2 (a web pod on w
// now) wait on. Every node but w is cordoned and u holds no pod, so
// uncordoning u first lands nothing and leaves every waiting pod known to
// fail but perhaps on the next node uncordoned. The same with every search
// run in full.
func TestUncordonLandsPastAConflict(t *testing.T) {
	defer func() { remembers = true }()
	node := func(name string, pods int) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata: {name: %s, labels: {kubernetes.io/hostname: %s}}\nstatus: {allocatable: {pods: %q}}", name, name, fmt.Sprint(pods))
	}
	bare := func(name string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata: {name: %s}\nspec: {nodeName: w, containers: [{name: c, image: x}]}", name)
	}
	m := yamlModel(t, node("u", 0), node("w", 2), node("x", 1), node("y", 1), node("z", 2), bare("hold-1"), bare("hold-2"),
		draintest.Deployment("web", 3, "app: web", draintest.HostnameAnti), draintest.Deployment("zz", 1, "app: zz", ""))
	for _, remember := range []bool{true, false} {
		remembers = remember
		s := m.NewSim(drain.Flags{Force: true})
		var pending []string
		for _, n := range []string{"u", "w", "x", "y", "z"} {
			for _, e := range s.Drain(n).Evicted {
				if e.To != "" {
					t.Fatalf("remembered failures %v: %s's pod %s lands on %s", remember, n, e.Pod.Key(), e.To)
				}
				if !e.Gone {
					pending = append(pending, e.Pod.Key())
				}
			}
		}
		if got := s.Uncordon("u"); len(got) != 0 {
			t.Fatalf("remembered failures %v: uncordoning u landed %+v", remember, got)
		}
		var landed []string
		for _, e := range s.Uncordon("w") {
			landed = append(landed, e.Pod.Key()+"->"+e.To)
		}
		if want := "default/web-0->w default/zz-0->w"; strings.Join(landed, " ") != want {
			t.Errorf("remembered failures %v: waiting %v, uncordoning w landed %v, want %s", remember, pending, landed, want)
		}
	}
}

package gpufit

import (
	"cmp"
	"slices"
)

// Window is the GPU Operator's driver rollout as DRV029 and DRV032 judge
// it at worst: the scopes that roll (autoUpgrade on), the managed nodes of
// each, and how many nodes each takes out at once (maxUnavailable, bounded
// by maxParallelUpgrades: k8s-operator-libs common_manager.go,
// GetUpgradesAvailable). Scopes roll side by side, so their windows add
// up; a node the operator does not roll is never out.
type Window struct {
	scopeOf map[string]int // managed node name: its scope, an index of out
	out     []int
}

// NewWindow is the rollout whose scope i takes out[i] nodes out at once,
// scopeOf naming each rolled node's scope. Nil without a scope that rolls.
func NewWindow(scopeOf map[string]int, out []int) *Window {
	if len(out) == 0 || len(scopeOf) == 0 {
		return nil
	}
	return &Window{scopeOf: scopeOf, out: out}
}

// scopeOfNode is the scope that rolls node, if one does.
func (w *Window) scopeOfNode(node string) (int, bool) {
	if w == nil {
		return 0, false
	}
	s, ok := w.scopeOf[node]
	return s, ok
}

// worst takes out of free, scope by scope, the nodes its window holds out
// at once, those of most worth first (worth orders slots, most first),
// and says how many it took and what is left.
func (w *Window) worst(free []slot, worth func(slot) int64) (out int, left []slot) {
	left = make([]slot, len(free))
	for i, s := range free {
		s.scopes = slices.Clone(s.scopes)
		left[i] = s
	}
	order := make([]int, len(left))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(worth(left[b]), worth(left[a])) })
	for scope, k := range w.out {
		for _, i := range order {
			if k == 0 {
				break
			}
			s := &left[i]
			if s.scopes == nil {
				continue
			}
			t := min(k, s.scopes[scope])
			s.scopes[scope] -= t
			s.count -= t
			k -= t
			out += t
		}
	}
	return out, left
}

// scopeCounts counts nodes by the scope that rolls them; nil without a
// window.
func (w *Window) scopeCounts(nodes ...string) []int {
	if w == nil {
		return nil
	}
	counts := make([]int, len(w.out))
	for _, n := range nodes {
		if s, ok := w.scopeOfNode(n); ok {
			counts[s]++
		}
	}
	return counts
}

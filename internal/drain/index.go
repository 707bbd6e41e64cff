package drain

import (
	"slices"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// LabelIndex finds things (pods, groups, templates) by namespace and label
// value, so that a selector with an equality or In requirement looks only
// at the things carrying that value, never at a whole namespace.
//
// A namespace's things are indexed by a label key the first time a
// selector asks for it: selectors name a few keys (app, name), and the
// things carry many more (a pod's template hash, its chart's labels),
// whose index no one reads: on a fleet of 60,000 pods, building it was
// most of joining the budgets. Past a few keys asked of one namespace,
// all of its keys are indexed at once, so that selectors of many keys
// cost one pass, not one each. Candidates is therefore not safe for
// concurrent use.
type LabelIndex[T any] struct {
	byNS    map[string][]T
	labels  map[string][]map[string]string // ns -> each thing's labels, in byNS's order
	byLabel map[nsKey]map[string][]T       // built as asked (values)
	asked   map[string]int                 // ns -> keys indexed one by one; lazyKeys: all of them
	ns      []string                       // namespaces, in first-seen order
	seen    map[string]int                 // ns -> its place in ns
}

// lazyKeys is how many keys of a namespace are indexed one by one before
// all of them are.
const lazyKeys = 8

type nsKey struct{ ns, key string }

// NewLabelIndex is an empty index.
func NewLabelIndex[T any]() *LabelIndex[T] {
	return &LabelIndex[T]{byNS: map[string][]T{}, labels: map[string][]map[string]string{}, byLabel: map[nsKey]map[string][]T{}, asked: map[string]int{}, seen: map[string]int{}}
}

// Add indexes x, of namespace ns with labels l.
func (ix *LabelIndex[T]) Add(ns string, l map[string]string, x T) {
	if _, seen := ix.seen[ns]; !seen {
		ix.seen[ns] = len(ix.ns)
		ix.ns = append(ix.ns, ns)
	}
	ix.byNS[ns] = append(ix.byNS[ns], x)
	ix.labels[ns] = append(ix.labels[ns], l)
}

// Candidates narrows a namespace's things by the selector's first equality
// or In requirement; the caller still matches the whole selector. Things
// come out in the order they were added.
func (ix *LabelIndex[T]) Candidates(sel labels.Selector, ns string) []T {
	reqs, _ := sel.Requirements()
	for _, r := range reqs {
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals:
			return ix.values(ns, r.Key())[r.Values().UnsortedList()[0]]
		case selection.In:
			if r.Values().Len() == 1 {
				return ix.values(ns, r.Key())[r.Values().UnsortedList()[0]]
			}
		}
	}
	return ix.byNS[ns]
}

// values is the things of ns by their value of key, built on first use.
func (ix *LabelIndex[T]) values(ns, key string) map[string][]T {
	k := nsKey{ns, key}
	if m, ok := ix.byLabel[k]; ok || ix.asked[ns] > lazyKeys {
		return m
	}
	if ix.asked[ns]++; ix.asked[ns] > lazyKeys {
		ix.indexAll(ns)
		return ix.byLabel[k]
	}
	m := map[string][]T{}
	for i, l := range ix.labels[ns] {
		if v, ok := l[key]; ok {
			m[v] = append(m[v], ix.byNS[ns][i])
		}
	}
	ix.byLabel[k] = m
	return m
}

// indexAll indexes every key of ns not indexed yet, in one pass.
func (ix *LabelIndex[T]) indexAll(ns string) {
	built := map[string]bool{}
	for i, l := range ix.labels[ns] {
		for key, v := range l {
			k := nsKey{ns, key}
			m, ok := ix.byLabel[k]
			if !ok {
				m, built[key] = map[string][]T{}, true
				ix.byLabel[k] = m
			}
			if built[key] {
				m[v] = append(m[v], ix.byNS[ns][i])
			}
		}
	}
}

// Namespaces lists the namespaces of the things added, in first-seen order.
func (ix *LabelIndex[T]) Namespaces() []string { return ix.ns }

// Among lists the namespaces of names that hold things, in first-seen
// order, as Namespaces lists them.
func (ix *LabelIndex[T]) Among(names []string) []string {
	var out []string
	for _, ns := range names {
		if _, ok := ix.seen[ns]; ok {
			out = append(out, ns)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return ix.seen[a] - ix.seen[b] })
	return out
}

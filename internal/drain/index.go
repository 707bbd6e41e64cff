package drain

import (
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// LabelIndex finds things (pods, groups, templates) by namespace and label
// value, so that a selector with an equality or In requirement looks only
// at the things carrying that value, never at a whole namespace.
type LabelIndex[T any] struct {
	byNS    map[string][]T
	byLabel map[string]map[string]map[string][]T // ns -> key -> value
	ns      []string                             // namespaces, in first-seen order
}

// NewLabelIndex is an empty index.
func NewLabelIndex[T any]() *LabelIndex[T] {
	return &LabelIndex[T]{byNS: map[string][]T{}, byLabel: map[string]map[string]map[string][]T{}}
}

// Add indexes x, of namespace ns with labels l.
func (ix *LabelIndex[T]) Add(ns string, l map[string]string, x T) {
	if _, seen := ix.byNS[ns]; !seen {
		ix.ns = append(ix.ns, ns)
		ix.byLabel[ns] = map[string]map[string][]T{}
	}
	ix.byNS[ns] = append(ix.byNS[ns], x)
	for k, v := range l {
		if ix.byLabel[ns][k] == nil {
			ix.byLabel[ns][k] = map[string][]T{}
		}
		ix.byLabel[ns][k][v] = append(ix.byLabel[ns][k][v], x)
	}
}

// Candidates narrows a namespace's things by the selector's first equality
// or In requirement; the caller still matches the whole selector. Things
// come out in the order they were added.
func (ix *LabelIndex[T]) Candidates(sel labels.Selector, ns string) []T {
	reqs, _ := sel.Requirements()
	for _, r := range reqs {
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals:
			return ix.byLabel[ns][r.Key()][r.Values().UnsortedList()[0]]
		case selection.In:
			if r.Values().Len() == 1 {
				return ix.byLabel[ns][r.Key()][r.Values().UnsortedList()[0]]
			}
		}
	}
	return ix.byNS[ns]
}

// Namespaces lists the namespaces of the things added, in first-seen order.
func (ix *LabelIndex[T]) Namespaces() []string { return ix.ns }

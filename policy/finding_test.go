package policy

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/drvcheck/drvcheck/internal/object"
)

// A summary counts errors and warnings, and takes them back out; other
// severities count in neither.
func TestSummaryCount(t *testing.T) {
	fs := []Finding{{Severity: Error}, {Severity: Warning}, {Severity: Error}, {Severity: Info}}
	var s Summary
	s.Count(fs, 1)
	if s.Errors != 2 || s.Warnings != 1 {
		t.Fatalf("%+v", s)
	}
	s.Count(fs[:2], -1)
	if s.Errors != 1 || s.Warnings != 0 {
		t.Errorf("%+v", s)
	}
}

// TestSortIsStable sorts findings whose keys repeat, so that many are
// equal in every key Sort compares and differ only in what it does not
// (Line), and wants the order of a stable sort by those keys.
func TestSortIsStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(vals ...string) string { return vals[rng.IntN(len(vals))] }
	fs := make([]Finding, 2000)
	for i := range fs {
		fs[i] = Finding{
			Rule: pick("DRV001", "DRV010", "DRV020"), Cluster: pick("", "east"),
			Object: object.Ref{Kind: pick("Node", "Deployment"), Namespace: pick("", "a", "b"), Name: pick("x", "y")},
			Node:   pick("", "n1"), Message: pick("m", "n"), Line: i,
		}
	}
	want := slices.Clone(fs)
	slices.SortStableFunc(want, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Cluster, b.Cluster),
			cmp.Compare(a.Object.Namespace, b.Object.Namespace), cmp.Compare(a.Object.Name, b.Object.Name),
			cmp.Compare(a.Object.Kind, b.Object.Kind), cmp.Compare(a.Node, b.Node), cmp.Compare(a.Message, b.Message))
	})
	Sort(fs)
	for i := range fs {
		if fs[i].Line != want[i].Line {
			t.Fatalf("position %d holds the finding first at %d, want the one at %d (a stable sort by the keys)", i, fs[i].Line, want[i].Line)
		}
	}
}

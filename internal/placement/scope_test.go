package placement

import (
	"fmt"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// TestScopeIsEveryNamespaceTheTermCovers holds scope, which looks up the
// namespaces a term names, to the test of every namespace in the index by
// the term's Covers: the same namespaces, in the same order.
func TestScopeIsEveryNamespaceTheTermCovers(t *testing.T) {
	ix := drain.NewLabelIndex[*group]()
	// Added out of name order: the index's order is first seen.
	for _, ns := range []string{"ns-3", "ns-1", "team-a", "ns-2", "team-b", "ns-1"} {
		ix.Add(ns, map[string]string{"app": "x"}, &group{ns: ns})
	}
	nsLabels := func(ns string) labels.Set {
		l := labels.Set{"kubernetes.io/metadata.name": ns}
		if ns == "team-a" || ns == "team-b" {
			l["tier"] = "team"
		}
		return l
	}
	tier := labels.SelectorFromSet(labels.Set{"tier": "team"})
	set := func(names ...string) map[string]bool {
		m := map[string]bool{}
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	terms := []sched.AntiTerm{
		{}, // its own namespace
		{Namespaces: set("ns-2", "team-b", "ns-3", "ns-1", "gone")}, // named, one not in the index
		{Namespaces: set("gone")},
		{NamespaceSelector: tier},
		{NamespaceSelector: labels.Everything()},
		{NamespaceSelector: tier, Namespaces: set("ns-1")},
	}
	for i, term := range terms {
		for _, owner := range []string{"ns-1", "team-b", "absent"} {
			var want []string
			for _, ns := range ix.Namespaces() {
				if term.Covers(owner, ns, nsLabels) {
					want = append(want, ns)
				}
			}
			got := scope(ix, term, owner, nsLabels)
			if !slices.Equal(got, want) {
				t.Errorf("term %d written in %s: scope %q, want %q", i, owner, got, want)
			}
		}
	}
	// Named in a map, the namespaces come out in the index's order (a
	// random order would pass once in 24 runs).
	if n := fmt.Sprint(scope(ix, terms[1], "ns-1", nsLabels)); n != "[ns-3 ns-1 ns-2 team-b]" {
		t.Errorf("named namespaces in the index's order: %s, want [ns-3 ns-1 ns-2 team-b]", n)
	}
}

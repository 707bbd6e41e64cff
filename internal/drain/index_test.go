package drain

import (
	"fmt"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/labels"
)

// Whatever keys are asked, one by one or past lazyKeys all at once, the
// index's candidates, matched, are exactly the things of the namespace the
// selector selects, in the order they were added.
func TestLabelIndexFindsWhatTheSelectorSelects(t *testing.T) {
	ix := NewLabelIndex[int]()
	things := map[string][]int{}
	thingLabels := map[int]labels.Set{}
	for i := range 600 {
		ns := fmt.Sprintf("ns-%d", i%3)
		l := labels.Set{"app": fmt.Sprintf("a%d", i%7), "hash": fmt.Sprintf("h%d", i)}
		for k := range 12 {
			if i%(k+2) == 0 {
				l[fmt.Sprintf("k%d", k)] = fmt.Sprintf("v%d", i%(k+3))
			}
		}
		ix.Add(ns, l, i)
		things[ns] = append(things[ns], i)
		thingLabels[i] = l
	}
	var selectors []string
	for k := range 12 {
		selectors = append(selectors, fmt.Sprintf("k%d=v1", k), fmt.Sprintf("k%d in (v2)", k), fmt.Sprintf("k%d", k))
	}
	selectors = append(selectors, "app=a3", "app in (a1,a2)", "app=a3,k0=v0", "hash=h42", "absent=x", "!k1")
	for round := range 2 { // the second after every namespace is indexed whole
		for _, ns := range []string{"ns-0", "ns-1", "ns-2", "ns-none"} {
			for _, s := range selectors {
				sel, err := labels.Parse(s)
				if err != nil {
					t.Fatal(err)
				}
				var got, want []int
				for _, x := range ix.Candidates(sel, ns) {
					if sel.Matches(thingLabels[x]) {
						got = append(got, x)
					}
				}
				for _, x := range things[ns] {
					if sel.Matches(thingLabels[x]) {
						want = append(want, x)
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("round %d, %s, %q: %v, want %v", round, ns, s, got, want)
				}
			}
		}
	}
	if ix.asked["ns-0"] <= lazyKeys {
		t.Errorf("ns-0 was asked %d keys; the test must pass lazyKeys (%d)", ix.asked["ns-0"], lazyKeys)
	}
}

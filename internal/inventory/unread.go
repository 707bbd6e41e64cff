package inventory

import (
	"fmt"
	"slices"
	"strings"

	"github.com/drvcheck/drvcheck/internal/load"
)

// Unread are the objects of one kind and apiVersion that look like a kind
// drvcheck reads but are not read: a Deployment of extensions/v1beta1, a
// "Deploymnet". Skipping them without a word would pass a repository whose
// workloads were never looked at.
type Unread struct {
	Kind, APIVersion string
	Why              string
	First            string // where the first one was read
	Count            int
}

func (u Unread) String() string {
	return fmt.Sprintf("%d %s object(s) of apiVersion %s not checked: %s (the first at %s)", u.Count, u.Kind, u.APIVersion, u.Why, u.First)
}

// unreadWhy says why o, which was not decoded, looks like it should have
// been, or "" when it is simply a kind no rule reads (a ConfigMap, a CRD).
func unreadWhy(o *load.Object) string {
	if k := byName(o.Kind); k != nil {
		// Another group: a custom resource named like a built-in kind is
		// not, but the groups these kinds were served in before are.
		if group, _ := splitAPIVersion(o.APIVersion); group == "extensions" {
			return "that apiVersion is no longer served; use " + k.APIVersion()
		}
		return ""
	}
	for _, name := range typedNames() {
		if strings.EqualFold(name, o.Kind) || (len(name) >= 7 && distance(name, o.Kind) <= 2) {
			return "no such kind; did you mean " + name + "?"
		}
	}
	return ""
}

// addUnread counts o under its kind and apiVersion.
func (inv *Inventory) addUnread(o *load.Object, why string) {
	for i := range inv.Unread {
		if u := &inv.Unread[i]; u.Kind == o.Kind && u.APIVersion == o.APIVersion {
			u.Count++
			return
		}
	}
	first := o.Ref().String()
	if o.Source != nil {
		first = fmt.Sprintf("%s:%d", o.Source.Name, o.Line)
	}
	inv.Unread = append(inv.Unread, Unread{Kind: o.Kind, APIVersion: o.APIVersion, Why: why, First: first, Count: 1})
}

// distance is the Levenshtein distance of a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// typedNames are the names of the kinds with an API type, sorted: those a
// misspelt kind is compared with.
func typedNames() []string {
	var out []string
	for _, k := range Kinds {
		if k.typed != nil {
			out = append(out, k.Name)
		}
	}
	slices.Sort(out)
	return out
}

package sched

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Placement is where a pod spec may run in a fleet.
type Placement struct {
	Total    int            // nodes in the fleet
	Eligible int            // nodes that pass every filter
	Matching int            // nodes whose labels match the node affinity and nodeSelector
	Reasons  map[string]int // failing nodes by the first filter they fail
	Classes  []ClassVerdict // one per class, in fleet order

	domains map[string]Domains // by topology key, computed on demand
}

// ClassVerdict is the outcome for one class of nodes.
type ClassVerdict struct {
	Class     *Class
	Reason    string // "" when the pod may run there
	Matches   bool   // node affinity and nodeSelector match
	Tolerated bool   // the pod tolerates the NoSchedule/NoExecute taints
}

// Admits reports whether the pod's affinity and tolerations let it onto the
// class, cordon aside: a cordon is temporary (a drain, an upgrade), so a
// cordoned node the pod may land on once uncordoned still counts.
func (v ClassVerdict) Admits() bool { return v.Matches && v.Tolerated }

// Place returns where spec may run. Specs with the same nodeSelector,
// affinity and tolerations share one cached result.
func (f *Fleet) Place(spec *corev1.PodSpec) *Placement {
	key := cacheKey(spec)
	if p, ok := f.cache[key]; ok {
		return p
	}
	flt := newFilter(spec)
	p := &Placement{Total: f.total, Reasons: map[string]int{}}
	for _, c := range f.classesFor(spec) {
		reason, matches, tolerated := flt.verdict(c.Rep)
		f.evals++
		p.Classes = append(p.Classes, ClassVerdict{Class: c, Reason: reason, Matches: matches, Tolerated: tolerated})
		if matches {
			p.Matching += len(c.Nodes)
		}
		if reason == "" {
			p.Eligible += len(c.Nodes)
		} else {
			p.Reasons[reason] += len(c.Nodes)
		}
	}
	f.cache[key] = p
	return p
}

// EligibleNodes lists the nodes that pass every filter.
func (p *Placement) EligibleNodes() []*corev1.Node {
	var out []*corev1.Node
	for _, c := range p.Classes {
		if c.Reason == "" {
			out = append(out, c.Class.Nodes...)
		}
	}
	return out
}

// Message explains the placement like the scheduler's FitError:
// "0/4 nodes match: 4 node(s) didn't match Pod's node affinity/selector".
func (p *Placement) Message() string {
	parts := make([]string, 0, len(p.Reasons))
	for r, n := range p.Reasons {
		parts = append(parts, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(parts)
	msg := fmt.Sprintf("%d/%d nodes match", p.Eligible, p.Total)
	if len(parts) > 0 {
		msg += ": " + strings.Join(parts, ", ")
	}
	return msg
}

// cacheKey is the content of everything the filters read from a spec.
func cacheKey(s *corev1.PodSpec) string {
	var na *corev1.NodeAffinity
	if s.Affinity != nil {
		na = s.Affinity.NodeAffinity
	}
	b, _ := json.Marshal(struct {
		NS  map[string]string
		NA  *corev1.NodeAffinity
		Tol []corev1.Toleration
	}{s.NodeSelector, na, s.Tolerations})
	return string(b)
}

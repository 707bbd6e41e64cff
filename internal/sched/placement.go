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
}

// ClassVerdict is the outcome for one class of nodes.
type ClassVerdict struct {
	Class   *Class
	Reason  string // "" when the pod may run there
	Matches bool   // node affinity and nodeSelector match
}

// Place returns where spec may run. Specs with the same nodeSelector,
// affinity and tolerations share one cached result.
func (f *Fleet) Place(spec *corev1.PodSpec) *Placement {
	key := cacheKey(spec)
	if p, ok := f.cache[key]; ok {
		return p
	}
	classes := f.Classes
	if !f.keys.covers(spec) {
		// A spec that reads labels the classes were not built on cannot
		// trust a representative: judge each node on its own.
		classes = NewFleet(f.nodes(), Keys{ByName: true}).Classes
	}
	flt := newFilter(spec)
	p := &Placement{Total: f.total, Reasons: map[string]int{}}
	for _, c := range classes {
		reason, matches := flt.reason(c.Rep)
		p.Classes = append(p.Classes, ClassVerdict{Class: c, Reason: reason, Matches: matches})
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

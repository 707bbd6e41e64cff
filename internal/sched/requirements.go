package sched

import (
	"fmt"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// Where a node label requirement is written.
const (
	FromNodeSelector = "nodeSelector"
	FromRequired     = "required"  // requiredDuringSchedulingIgnoredDuringExecution
	FromPreferred    = "preferred" // preferredDuringSchedulingIgnoredDuringExecution
)

// Requirement is one node label requirement of a pod spec: a nodeSelector
// entry (operator In, one value) or a matchExpressions item of the node
// affinity, with its path inside the pod spec so findings point at it.
type Requirement struct {
	Key      string
	Operator corev1.NodeSelectorOperator
	Values   []string
	From     string
	Path     []any // e.g. affinity, nodeAffinity, requiredDuring..., nodeSelectorTerms, 0, matchExpressions, 1
}

// Requirements lists the node label requirements of s: the nodeSelector in
// key order, then the required terms, then the preferred ones.
func Requirements(s *corev1.PodSpec) []Requirement {
	var out []Requirement
	keys := make([]string, 0, len(s.NodeSelector))
	for k := range s.NodeSelector {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = append(out, Requirement{Key: k, Operator: corev1.NodeSelectorOpIn, Values: []string{s.NodeSelector[k]},
			From: FromNodeSelector, Path: []any{"nodeSelector", k}})
	}
	if s.Affinity == nil || s.Affinity.NodeAffinity == nil {
		return out
	}
	na := s.Affinity.NodeAffinity
	if req := na.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
		base := []any{"affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"}
		for i, term := range req.NodeSelectorTerms {
			out = appendExpressions(out, term.MatchExpressions, FromRequired, base, i)
		}
	}
	base := []any{"affinity", "nodeAffinity", "preferredDuringSchedulingIgnoredDuringExecution"}
	for i, p := range na.PreferredDuringSchedulingIgnoredDuringExecution {
		out = appendExpressions(out, p.Preference.MatchExpressions, FromPreferred, append(slices.Clone(base), i, "preference"), -1)
	}
	return out
}

// appendExpressions adds exprs found at base[, term], "matchExpressions", j.
func appendExpressions(out []Requirement, exprs []corev1.NodeSelectorRequirement, from string, base []any, term int) []Requirement {
	for j, e := range exprs {
		path := slices.Clone(base)
		if term >= 0 {
			path = append(path, term)
		}
		path = append(path, "matchExpressions", j)
		out = append(out, Requirement{Key: e.Key, Operator: e.Operator, Values: e.Values, From: from, Path: path})
	}
	return out
}

// Numeric reports whether r compares label values as integers (Gt, Lt).
func (r Requirement) Numeric() bool {
	return r.Operator == corev1.NodeSelectorOpGt || r.Operator == corev1.NodeSelectorOpLt
}

// ValueProblem explains why a Gt/Lt requirement can never match whatever
// the node, or returns "". It asks apimachinery's labels.NewRequirement, the
// parser the scheduler uses: a term it rejects never matches.
func (r Requirement) ValueProblem() string {
	if !r.Numeric() {
		return ""
	}
	op := selection.GreaterThan
	if r.Operator == corev1.NodeSelectorOpLt {
		op = selection.LessThan
	}
	if _, err := labels.NewRequirement(r.Key, op, r.Values); err == nil {
		return ""
	}
	switch {
	case len(r.Values) != 1:
		return fmt.Sprintf("%s needs exactly one value, has %d", r.Operator, len(r.Values))
	case !IsInteger(r.Values[0]):
		return fmt.Sprintf("value %q is not an integer", r.Values[0])
	}
	return fmt.Sprintf("value %q or key %q is not valid in a label selector", r.Values[0], r.Key)
}

// IsInteger reports whether a label value can be compared by Gt/Lt: the
// scheduler parses it with strconv.ParseInt(v, 10, 64), and a node whose
// value fails to parse never matches.
func IsInteger(v string) bool {
	_, err := strconv.ParseInt(v, 10, 64)
	return err == nil
}

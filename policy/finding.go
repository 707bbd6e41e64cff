package policy

import (
	"cmp"
	"slices"

	"github.com/drvcheck/drvcheck/internal/object"
)

// Severities, from the most to the least severe.
const (
	Error   = "error"
	Warning = "warning"
	Info    = "info"
)

// Rank orders severities: Error is 3, Warning 2, Info 1, anything else 0.
func Rank(severity string) int {
	switch severity {
	case Error:
		return 3
	case Warning:
		return 2
	case Info:
		return 1
	}
	return 0
}

// Finding is one rule's verdict on one object. Rules produce every field but
// File and Line, which drvcheck fills from where the object was read, and
// Field, the path inside the object used to find that line.
type Finding struct {
	Rule     string     `json:"rule"`
	Title    string     `json:"title"`
	Severity string     `json:"severity"`
	Object   object.Ref `json:"object"`
	Node     string     `json:"node,omitempty"`
	Tag      string     `json:"tag,omitempty"`
	Message  string     `json:"message"`
	File     string     `json:"file,omitempty"`
	Line     int        `json:"line,omitempty"`
	Field    []any      `json:"-"`
}

// Sort orders findings by rule, namespace, name (the contract's order), then
// by kind, node and message so that equal keys still print stably.
func Sort(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Object.Namespace, b.Object.Namespace),
			cmp.Compare(a.Object.Name, b.Object.Name),
			cmp.Compare(a.Object.Kind, b.Object.Kind),
			cmp.Compare(a.Node, b.Node),
			cmp.Compare(a.Message, b.Message),
		)
	})
}

// Rule describes a rule for listings and SARIF.
type Rule struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Severity string `json:"severity"`
	Help     string `json:"help"`
}

// Summary counts what a run saw and found.
type Summary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	// Suppressed counts findings held back by an exception (not in Errors
	// or Warnings).
	Suppressed int `json:"suppressed"`
	GPUNodes   int `json:"gpu_nodes"`
	Objects    int `json:"objects"`
}

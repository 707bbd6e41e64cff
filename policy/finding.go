package policy

import (
	"cmp"
	"slices"
	"strings"

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
// File and Line, which drvcheck fills from where the object was read with
// Field, the path inside the object.
//
// Image, Fix and Stalls are how a rule states what commands other than
// check act on (docs/input.md, "What commands read from findings"); they
// are not part of the JSON report.
type Finding struct {
	Rule     string `json:"rule"`
	Title    string `json:"title"`
	Severity string `json:"severity"`
	// Cluster names the cluster of a fleet's merged result (report
	// merge); empty in one cluster's run.
	Cluster string     `json:"cluster,omitempty"`
	Object  object.Ref `json:"object"`
	Node    string     `json:"node,omitempty"`
	Tag     string     `json:"tag,omitempty"`
	Message string     `json:"message"`
	File    string     `json:"file,omitempty"`
	Line    int        `json:"line,omitempty"`
	Field   []any      `json:"-"`
	// Baseline is "new" or "existing" when the run is compared with an
	// earlier report (--baseline, internal/baseline); empty otherwise.
	Baseline string `json:"baseline,omitempty"`

	// Image says the node's driver image is "missing" (audit prints the
	// node as MISSING) or "unknown" (no tag can be made: audit fails).
	Image string `json:"-"`
	// Fix is the smallest change that resolves the finding, for plan.
	Fix string `json:"-"`
	// Stalls names the nodes whose driver upgrade this finding holds
	// where they stand, for status.
	Stalls []string `json:"-"`
}

// Sort orders findings by rule, namespace, name (the order the README documents), then
// by kind, node and message so that equal keys still print stably.
//
// It sorts the findings' positions and moves each finding once: a stable
// sort of the findings themselves moved every one of them (almost 300
// bytes) about log n times more, and took 0.15 s of a run's serial tail on
// 31,250 findings (docs/performance.md). Equal keys keep their order, as
// the position breaks the tie.
func Sort(fs []Finding) {
	order := make([]int32, len(fs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int {
		return cmp.Or(compare(&fs[i], &fs[j]), cmp.Compare(i, j))
	})
	sorted := make([]Finding, len(fs))
	for k, i := range order {
		sorted[k] = fs[i]
	}
	copy(fs, sorted)
}

// compare is Sort's order of two findings' keys, each compared only when
// those before it are equal.
func compare(a, b *Finding) int {
	for _, k := range [...][2]string{
		{a.Rule, b.Rule}, {a.Cluster, b.Cluster}, {a.Object.Namespace, b.Object.Namespace},
		{a.Object.Name, b.Object.Name}, {a.Object.Kind, b.Object.Kind}, {a.Node, b.Node},
		{a.Message, b.Message},
	} {
		if c := strings.Compare(k[0], k[1]); c != 0 {
			return c
		}
	}
	return 0
}

// Rule describes a rule for listings and SARIF.
type Rule struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Severity string `json:"severity"`
	Help     string `json:"help"`
	// Needs names what the rule cannot judge without: "catalog" (a
	// --matrix or --registry). A run without it says the rule is skipped.
	Needs []string `json:"needs,omitempty"`
	// Rollout: the simulated rollout reads its findings (meta "rollout"),
	// so plan --all evaluates it (Engine.Only); plan --all prints no
	// finding, and evaluates no built-in rule without it.
	Rollout bool `json:"-"`
}

// Summary counts what a run saw and found.
type Summary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	// Suppressed counts findings held back by an exception (not in Errors
	// or Warnings).
	Suppressed int `json:"suppressed"`
	// SkippedRules counts rules that could not judge: what they need (a
	// source of tags, nodes) is not in the run.
	SkippedRules int `json:"skipped_rules"`
	// UncheckedObjects counts objects that look like workloads but are not
	// read: a removed apiVersion, a misspelt kind.
	UncheckedObjects int `json:"unchecked_objects"`
	// SkippedFiles counts files that hold no Kubernetes object (Helm
	// values, workflows, templates), skipped unless --strict.
	SkippedFiles int `json:"skipped"`
	GPUNodes     int `json:"gpu_nodes"`
	Objects      int `json:"objects"`
}

// Count adds the findings to the errors and warnings they are, n times
// each (-1 takes them back out).
func (s *Summary) Count(fs []Finding, n int) {
	for _, f := range fs {
		switch f.Severity {
		case Error:
			s.Errors += n
		case Warning:
			s.Warnings += n
		}
	}
}

// Package baseline compares a run's findings with an earlier report of the
// same check (its -o json), so that a pull request fails only for what it
// changes: each finding is new or existing. Findings are keyed by rule,
// object and node, never by file or line, which a change elsewhere in a
// file moves.
package baseline

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/policy"
)

// The states a finding may have against a baseline.
const (
	New      = "new"
	Existing = "existing"
)

// key identifies a finding across runs.
type key struct {
	rule string
	obj  object.Ref
	node string
}

func keyOf(f policy.Finding) key { return key{f.Rule, f.Object, f.Node} }

// Baseline is the findings of an earlier report, by key, with their
// messages.
type Baseline struct {
	Path     string
	messages map[key][]string
}

// Parse reads a report written by -o json, read from path.
func Parse(path string, data []byte) (*Baseline, error) {
	var rep struct {
		Findings *[]policy.Finding `json:"findings"`
	}
	if err := json.Unmarshal(data, &rep); err != nil || rep.Findings == nil {
		return nil, fmt.Errorf("--baseline %s: not a drvcheck -o json report (want an object with findings)", path)
	}
	for _, x := range *rep.Findings {
		if x.Rule == "" {
			return nil, fmt.Errorf("--baseline %s: a finding without a rule", path)
		}
	}
	return Of(*rep.Findings, path), nil
}

// Of is the baseline of findings from a run of its own (check
// --diff-base), named what for messages.
func Of(fs []policy.Finding, what string) *Baseline {
	b := &Baseline{Path: what, messages: map[key][]string{}}
	for _, x := range fs {
		b.messages[keyOf(x)] = append(b.messages[keyOf(x)], x.Message)
	}
	return b
}

// Mark sets each finding's Baseline to New or Existing. A key the
// baseline held n times makes n findings of that key existing: first
// those whose message it held word for word, then the others in order.
// Counts change messages ("3 of 4 nodes"), so a message alone never makes
// a finding new.
func (b *Baseline) Mark(fs []policy.Finding) {
	left := map[key]int{}
	for k, ms := range b.messages {
		left[k] = len(ms)
	}
	for i := range fs {
		fs[i].Baseline = New
	}
	for i := range fs { // word for word first
		k := keyOf(fs[i])
		if left[k] > 0 && slices.Contains(b.messages[k], fs[i].Message) {
			fs[i].Baseline = Existing
			left[k]--
		}
	}
	for i := range fs {
		if k := keyOf(fs[i]); fs[i].Baseline == New && left[k] > 0 {
			fs[i].Baseline = Existing
			left[k]--
		}
	}
}

// Fresh are the findings the baseline did not hold.
func Fresh(fs []policy.Finding) []policy.Finding {
	var out []policy.Finding
	for _, f := range fs {
		if f.Baseline != Existing {
			out = append(out, f)
		}
	}
	return out
}

// Count counts the new and existing findings.
func Count(fs []policy.Finding) (fresh, existing int) {
	for _, f := range fs {
		switch f.Baseline {
		case New:
			fresh++
		case Existing:
			existing++
		}
	}
	return fresh, existing
}

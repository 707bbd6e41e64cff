// Package baseline compares a run's findings with an earlier report of the
// same check (its -o json), so that a pull request fails only for what it
// changes: each finding is new or existing. Findings are keyed by rule,
// object and node, never by file or line, which a change elsewhere in a
// file moves.
package baseline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	b, err := Read(path, bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("--baseline %w", err)
	}
	return b, nil
}

// Read reads a report written by -o json from r, read from path, one
// finding at a time, keeping of each its key and message only: a report
// at the size limit decoded whole took 2 GB. Errors name path; an error
// of r (a limit) is returned as it is.
func Read(path string, r io.Reader) (*Baseline, error) {
	dec := json.NewDecoder(r)
	bad := func(t json.Token, err error) error {
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		var shape notReport
		if err != nil && !errors.Is(err, io.EOF) && !errors.As(err, &syntax) && !errors.As(err, &typ) && !errors.As(err, &shape) {
			return err // the reader's own: a limit, a deadline
		}
		return fmt.Errorf("%s: not a drvcheck -o json report (want an object with findings): %s", path, tokenWhy(t, err))
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, bad(t, err)
	}
	b := &Baseline{Path: path, messages: map[key][]string{}}
	found := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, bad(t, err)
		}
		if t != "findings" {
			if err := skip(dec); err != nil {
				return nil, bad(nil, err)
			}
			continue
		}
		if found {
			return nil, fmt.Errorf("%s: findings given twice", path)
		}
		found = true
		if err := b.readFindings(dec); err != nil {
			return nil, bad(nil, err)
		}
	}
	if t, err := dec.Token(); err != nil || !found {
		return nil, bad(t, err)
	}
	return b, nil
}

// readFindings reads the findings array, one finding at a time.
func (b *Baseline) readFindings(dec *json.Decoder) error {
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		if err == nil {
			err = notReport(fmt.Sprintf("findings is %v, not a list", t))
		}
		return err
	}
	names := map[string]string{} // rules and kinds repeat: one string each
	for dec.More() {
		var f struct {
			Rule    string     `json:"rule"`
			Object  object.Ref `json:"object"`
			Node    string     `json:"node"`
			Message string     `json:"message"`
		}
		if err := dec.Decode(&f); err != nil {
			return err
		}
		if f.Rule == "" {
			return notReport("a finding without a rule")
		}
		k := key{intern(names, f.Rule), f.Object, f.Node}
		k.obj.Kind = intern(names, k.obj.Kind)
		b.messages[k] = append(b.messages[k], f.Message)
	}
	_, err := dec.Token() // ]
	return err
}

// notReport is what makes a JSON document other than a report.
type notReport string

func (e notReport) Error() string { return string(e) }

func intern(seen map[string]string, s string) string {
	if v, ok := seen[s]; ok {
		return v
	}
	seen[s] = s
	return s
}

// skip reads past the value at dec's position, token by token: a key the
// baseline does not use (suppressed, summary) is never held whole.
func skip(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

func tokenWhy(t json.Token, err error) string {
	switch {
	case errors.Is(err, io.EOF), err == nil && t == nil:
		return "it ends early"
	case err != nil:
		return err.Error()
	}
	return fmt.Sprintf("it starts with %v", t)
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

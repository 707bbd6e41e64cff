package exceptions

import (
	"fmt"
	"time"

	"github.com/drvcheck/drvcheck/internal/config"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/policy"
)

// SourceAnnotation marks a finding suppressed by an annotation on its object
// (or on the controller that owns it).
const SourceAnnotation = "annotation"

// Suppressed is a finding an exception holds back, with why.
type Suppressed struct {
	policy.Finding
	Reason  string `json:"reason"`
	Source  string `json:"source"` // "annotation", or the config file it came from
	Expires string `json:"expires,omitempty"`
}

// Expired is an exception past its date: it no longer suppresses.
type Expired struct {
	Rule    string // rule id or pattern
	Object  string // Kind/namespace/name, or Kind/name
	Reason  string
	Expires string
	Source  string // "annotation", or the config file
	More    int    // other objects carrying the same expired annotation
}

func (e Expired) String() string {
	obj := e.Object
	if e.More > 0 {
		obj = fmt.Sprintf("%s and %d more", obj, e.More)
	}
	return fmt.Sprintf("exception for %s on %s (%s) expired on %s and no longer suppresses: %s",
		e.Rule, obj, e.Source, e.Expires, e.Reason)
}

// Outcome splits a run's findings into those reported and those held back.
type Outcome struct {
	Findings   []policy.Finding
	Suppressed []Suppressed
	Expired    []Expired
}

// Set is every exception of one run, ready to match findings.
type Set struct {
	entries []entry
	index   index
	today   time.Time
}

// New validates the config file's exceptions (source names the file, for
// messages) and indexes the annotations of the objects in inv. today decides
// expiry: an exception applies up to and including its expires date (UTC).
// A malformed config entry is an error; a malformed annotation is not (it
// would stop a cluster scan), it just does not suppress and says why.
func New(list []config.Exception, source string, inv *inventory.Inventory, today time.Time) (*Set, error) {
	entries, err := compile(list, source)
	if err != nil {
		return nil, err
	}
	y, m, d := today.UTC().Date()
	return &Set{entries: entries, index: indexOf(inv), today: time.Date(y, m, d, 0, 0, 0, 0, time.UTC)}, nil
}

// Apply matches every finding against the exceptions. The order of the
// findings is kept in both lists.
func (s *Set) Apply(fs []policy.Finding) Outcome {
	var out Outcome
	for _, f := range fs {
		if sup, ok := s.suppress(&f); ok {
			out.Suppressed = append(out.Suppressed, sup)
			continue
		}
		out.Findings = append(out.Findings, f)
	}
	out.Expired = s.expired()
	return out
}

// suppress returns the first live exception that covers f. Exceptions that
// cover f but cannot suppress it (expired, no reason) add a note to its
// message instead, so the reader learns why the finding is still there.
func (s *Set) suppress(f *policy.Finding) (Suppressed, bool) {
	var notes []string
	for _, e := range s.entries {
		if !e.covers(f) {
			continue
		}
		if e.expired(s.today) {
			notes = append(notes, fmt.Sprintf("exception in %s expired on %s: %s", e.source, e.expires, e.reason))
			continue
		}
		return Suppressed{Finding: *f, Reason: e.reason, Source: e.source, Expires: e.expires}, true
	}
	for _, a := range s.index.chain(f.Object) {
		if !a.lists(f.Rule) {
			continue
		}
		if a.problem != "" {
			notes = append(notes, a.problem)
			continue
		}
		if a.expired(s.today) {
			notes = append(notes, fmt.Sprintf("%s on %s expired on %s: %s", AnnotationIgnore, a.where, a.expires, a.reason))
			continue
		}
		return Suppressed{Finding: *f, Reason: a.reason, Source: SourceAnnotation, Expires: a.expires}, true
	}
	for _, n := range notes {
		f.Message += " (" + n + ")"
	}
	return Suppressed{}, false
}

// expired lists every exception past its date, matched or not, so that
// stale exceptions are cleaned up rather than forgotten.
func (s *Set) expired() []Expired {
	var out []Expired
	for _, e := range s.entries {
		if e.expired(s.today) {
			out = append(out, Expired{Rule: e.rule, Object: e.object, Reason: e.reason, Expires: e.expires, Source: e.source})
		}
	}
	// Pods made from one template repeat their controller's annotation:
	// one line per distinct annotation, naming the first object.
	seen := map[string]int{}
	for _, ref := range s.index.sorted() {
		a := s.index[ref]
		if a.problem != "" || !a.expired(s.today) {
			continue
		}
		key := a.rulesText + "\x00" + a.reason + "\x00" + a.expires
		if i, dup := seen[key]; dup {
			out[i].More++
			continue
		}
		seen[key] = len(out)
		out = append(out, Expired{Rule: a.rulesText, Object: ref.String(), Reason: a.reason, Expires: a.expires, Source: SourceAnnotation})
	}
	return out
}

package render

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/drvcheck/drvcheck/internal/exceptions"
	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/policy"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	File     string      `xml:"file,attr,omitempty"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitFailure `xml:"failure"`
	Skipped   *junitSkipped `xml:"skipped"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// JUnit prints one test suite per rule. In it, a failing test case for
// each object the rule found something on (all its findings on that object
// in the body), a skipped case for each object an exception covers, and
// one passing case for every other object checked. A fleet of thousands of
// objects with a hundred findings is a hundred-odd cases, not one per
// object and rule.
func JUnit(w io.Writer, r Report, opt Options) error {
	objects := junitObjects(r)
	found := groupFindings(r.Findings)
	held := map[caseKey][]exceptions.Suppressed{}
	for _, s := range r.Suppressed {
		k := caseKey{subject{s.Cluster, s.Object}, s.Rule}
		held[k] = append(held[k], s)
	}
	out := junitSuites{Name: "drvcheck", Suites: []junitSuite{}}
	for _, rule := range junitRules(r) {
		suite := junitSuite{Name: strings.TrimSpace(rule.ID + " " + rule.Title)}
		for _, obj := range objects {
			k := caseKey{obj, rule.ID}
			c := junitCase{Name: obj.String(), Classname: rule.ID}
			switch fs, ss := found[k], held[k]; {
			case len(fs) > 0:
				c.File, c.Line = opt.displayPath(fs[0].File), fs[0].Line
				c.Failure = failureOf(fs, opt)
				suite.Failures++
			case len(ss) > 0:
				c.File, c.Line = opt.displayPath(ss[0].File), ss[0].Line
				c.Skipped = &junitSkipped{Message: "suppressed (" + ss[0].Source + "): " + ss[0].Reason}
				suite.Skipped++
			default:
				continue
			}
			if suite.File == "" {
				suite.File = c.File
			}
			suite.Cases = append(suite.Cases, c)
		}
		rest := len(objects) - len(suite.Cases)
		suite.Cases = append(suite.Cases, junitCase{Name: fmt.Sprintf("%d other object(s) pass", rest), Classname: rule.ID})
		suite.Tests = len(suite.Cases)
		out.Tests += suite.Tests
		out.Failures += suite.Failures
		out.Skipped += suite.Skipped
		out.Suites = append(out.Suites, suite)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

type caseKey struct {
	obj  subject
	rule string
}

// subject is an object, and its cluster in a fleet's result: one name in
// two clusters is two test cases.
type subject struct {
	cluster string
	ref     object.Ref
}

func (s subject) String() string { return where(policy.Finding{Cluster: s.cluster, Object: s.ref}) }

func groupFindings(fs []policy.Finding) map[caseKey][]policy.Finding {
	out := map[caseKey][]policy.Finding{}
	for _, f := range fs {
		k := caseKey{subject{f.Cluster, f.Object}, f.Rule}
		out[k] = append(out[k], f)
	}
	return out
}

// failureOf is one object's findings under one rule: each message once,
// in the body with its place, and only their count in the attribute.
func failureOf(fs []policy.Finding, opt Options) *junitFailure {
	var body strings.Builder
	for _, f := range fs {
		if f.File != "" {
			fmt.Fprintf(&body, "%s:%d: ", opt.displayPath(f.File), f.Line)
		}
		fmt.Fprintf(&body, "%s: %s\n", f.Severity, f.Message)
	}
	return &junitFailure{Message: fmt.Sprintf("%d finding(s)", len(fs)), Type: fs[0].Severity, Body: body.String()}
}

// junitRules lists every rule, and rules that produced findings without a
// meta, by id.
func junitRules(r Report) []policy.Rule {
	out := slices.Clone(r.Rules)
	for _, f := range allFindings(r) {
		if !slices.ContainsFunc(out, func(x policy.Rule) bool { return x.ID == f.Rule }) {
			out = append(out, policy.Rule{ID: f.Rule, Title: f.Title, Severity: f.Severity})
		}
	}
	slices.SortFunc(out, func(a, b policy.Rule) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// junitObjects lists the objects checked and any object a finding names,
// sorted by kind, namespace and name.
func junitObjects(r Report) []subject {
	seen := map[subject]bool{}
	var out []subject
	add := func(s subject) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, o := range r.Objects {
		add(subject{ref: o})
	}
	for _, f := range allFindings(r) {
		add(subject{f.Cluster, f.Object})
	}
	slices.SortFunc(out, func(a, b subject) int {
		return cmp.Or(cmp.Compare(a.cluster, b.cluster), cmp.Compare(a.ref.Kind, b.ref.Kind), cmp.Compare(a.ref.Namespace, b.ref.Namespace), cmp.Compare(a.ref.Name, b.ref.Name))
	})
	return out
}

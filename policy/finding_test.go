package policy

import "testing"

// A summary counts errors and warnings, and takes them back out; other
// severities count in neither.
func TestSummaryCount(t *testing.T) {
	fs := []Finding{{Severity: Error}, {Severity: Warning}, {Severity: Error}, {Severity: Info}}
	var s Summary
	s.Count(fs, 1)
	if s.Errors != 2 || s.Warnings != 1 {
		t.Fatalf("%+v", s)
	}
	s.Count(fs[:2], -1)
	if s.Errors != 1 || s.Warnings != 0 {
		t.Errorf("%+v", s)
	}
}

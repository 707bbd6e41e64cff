package render

import "github.com/drvcheck/drvcheck/policy"

// levels name a format's words for drvcheck's severities.
type levels struct{ error, warning, other string }

// of is the word for severity; a severity drvcheck does not know (a
// custom rule's typo) reads as other, never as an error.
func (l levels) of(severity string) string {
	switch severity {
	case policy.Error:
		return l.error
	case policy.Warning:
		return l.warning
	}
	return l.other
}

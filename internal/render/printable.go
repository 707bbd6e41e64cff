package render

import (
	"strings"
	"unicode"
)

// printable replaces the control characters of s but the line break with
// U+FFFD: the formats whose own escaping leaves them (a metric's label
// value, a page's text) would carry a merged result's escape sequences
// to the terminal of whoever prints them.
func printable(s string) string {
	if strings.IndexFunc(s, isControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return unicode.ReplacementChar
		}
		return r
	}, s)
}

func isControl(r rune) bool { return r != '\n' && unicode.IsControl(r) }

// Package oneline keeps text that may come from a manifest on one line:
// error messages and every text output quote names, labels and values a
// pull request controls, and a newline in them would break an error in
// two or let the pull request write a line of its own into a CI log (a
// ::error workflow command, say).
package oneline

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxValue is the most of one value a line prints, in bytes: a label
// value of megabytes must not print megabytes into a terminal, a CI log or
// a pull-request comment (-o json keeps it whole).
const MaxValue = 4096

// Escape writes the control characters of s as Go escapes (\n, \r, \x1b),
// and cuts what is past MaxValue bytes, saying how much.
func Escape(s string) string {
	cut := 0
	if len(s) > MaxValue {
		end := MaxValue
		for end > 0 && !utf8.RuneStart(s[end]) {
			end--
		}
		s, cut = s[:end], len(s)-end
	}
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		var b strings.Builder
		for _, r := range s {
			if unicode.IsControl(r) {
				q := strconv.QuoteRune(r)
				b.WriteString(q[1 : len(q)-1])
				continue
			}
			b.WriteRune(r)
		}
		s = b.String()
	}
	if cut > 0 {
		s += fmt.Sprintf("… (%d more bytes)", cut)
	}
	return s
}

// Error is err's text on one line, each run of white space one space: a
// library's multi-line error (Helm's, kustomize's, YAML's) as every error
// of drvcheck is written.
func Error(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// Few lists at most three of list, joined by sep, and says how many more
// there are: a long list must not take over a one-line message.
func Few(list []string, sep string) string {
	const most = 3
	if len(list) > most {
		return fmt.Sprintf("%s and %d more", strings.Join(list[:most], sep), len(list)-most)
	}
	return strings.Join(list, sep)
}

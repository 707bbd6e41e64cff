package render

import (
	"fmt"
	"io"
	"slices"

	"github.com/drvcheck/drvcheck/policy"
)

// Report is what every format prints.
type Report struct {
	Findings []policy.Finding
	Summary  policy.Summary
	Rules    []policy.Rule
}

// Options tune output for its destination.
type Options struct {
	Color bool // ANSI colours (text only)
}

type renderer func(io.Writer, Report, Options) error

var formats = map[string]renderer{
	"text": Text,
	"json": JSON,
}

// Formats lists the output formats by name.
func Formats() []string {
	var out []string
	for k := range formats {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Render prints r in format.
func Render(w io.Writer, format string, r Report, opt Options) error {
	f, ok := formats[format]
	if !ok {
		return fmt.Errorf("unknown output format %q (want one of %v)", format, Formats())
	}
	return f(w, r, opt)
}

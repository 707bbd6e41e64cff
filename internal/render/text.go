package render

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/drvcheck/drvcheck/internal/baseline"
	"github.com/drvcheck/drvcheck/internal/oneline"
	"github.com/drvcheck/drvcheck/policy"
)

const (
	red    = "\x1b[31m"
	yellow = "\x1b[33m"
	cyan   = "\x1b[36m"
	bold   = "\x1b[1m"
	reset  = "\x1b[0m"
)

// Text prints findings for people, the most severe group first.
func Text(w io.Writer, r Report, opt Options) error {
	bw := bufio.NewWriter(w)
	paint := func(code, s string) string {
		if !opt.Color {
			return s
		}
		return code + s + reset
	}
	for _, sev := range []struct{ name, label, color string }{
		{policy.Error, "ERRORS", red},
		{policy.Warning, "WARNINGS", yellow},
		{policy.Info, "INFO", cyan},
	} {
		group := filter(r.Findings, sev.name)
		if len(group) == 0 {
			continue
		}
		fmt.Fprintf(bw, "%s (%d)\n", paint(bold+sev.color, sev.label), len(group))
		for _, f := range group {
			fmt.Fprintf(bw, "  %s %s  %s%s\n", paint(sev.color, oneline.Escape(f.Rule)), oneline.Escape(f.Title), oneline.Escape(where(f)), existingMark(f))
			if f.File != "" {
				fmt.Fprintf(bw, "    %s:%d\n", oneline.Escape(f.File), f.Line)
			}
			fmt.Fprintf(bw, "    %s\n", oneline.Escape(f.Message))
		}
		fmt.Fprintln(bw)
	}
	textSuppressed(bw, r, paint)
	s := r.Summary
	fmt.Fprintf(bw, "%d error(s), %d warning(s)", s.Errors, s.Warnings)
	if s.Suppressed > 0 {
		fmt.Fprintf(bw, ", %d suppressed", s.Suppressed)
	}
	if split := baselineSplit(r.Findings); split != "" {
		fmt.Fprintf(bw, " (%s)", split)
	}
	fmt.Fprintf(bw, "; %d GPU node(s), %d object(s) checked", s.GPUNodes, s.Objects)
	if len(r.Clusters) > 0 {
		fmt.Fprintf(bw, " in %d cluster(s)", len(r.Clusters))
	}
	if len(r.Unread) > 0 {
		fmt.Fprintf(bw, "; %d cluster(s) could not be read: %s", len(r.Unread), oneline.Escape(strings.Join(r.Unread, ", ")))
	}
	fmt.Fprintln(bw)
	return bw.Flush()
}

// existingMark marks a finding the baseline already held.
func existingMark(f policy.Finding) string {
	if f.Baseline == baseline.Existing {
		return "  (existing: not failing)"
	}
	return ""
}

// baselineSplit counts the findings new and existing against --baseline;
// "" without one.
func baselineSplit(fs []policy.Finding) string {
	fresh, existing := baseline.Count(fs)
	if fresh+existing == 0 {
		return ""
	}
	return fmt.Sprintf("%d new, %d existing against the baseline", fresh, existing)
}

func filter(fs []policy.Finding, severity string) []policy.Finding {
	var out []policy.Finding
	for _, f := range fs {
		if f.Severity == severity {
			out = append(out, f)
		}
	}
	return out
}

// ColorFor reports whether output to f should be coloured: only on a
// terminal, and never when NO_COLOR is set and not empty (https://no-color.org).
func ColorFor(f *os.File) bool {
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// textSuppressed lists suppressed findings, one line each, so that an
// exception never hides a finding silently.
func textSuppressed(w io.Writer, r Report, paint func(code, s string) string) {
	if len(r.Suppressed) == 0 {
		return
	}
	fmt.Fprintf(w, "%s (%d)\n", paint(bold, "SUPPRESSED"), len(r.Suppressed))
	for _, x := range r.Suppressed {
		fmt.Fprintf(w, "  %s %s  %s  (%s: %s)\n", oneline.Escape(x.Rule), oneline.Escape(x.Title), oneline.Escape(where(x.Finding)), oneline.Escape(x.Source), oneline.Escape(x.Reason))
	}
	fmt.Fprintln(w)
}

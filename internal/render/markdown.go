package render

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/drvcheck/drvcheck/internal/baseline"
	"github.com/drvcheck/drvcheck/internal/oneline"
	"github.com/drvcheck/drvcheck/policy"
)

// markdownRows caps each table: a pull-request comment holds at most 65,536
// characters and a step summary 1 MiB, and past a few hundred rows the SARIF
// or JSON report is the better read anyway.
const markdownRows = 200

// Markdown prints a summary for $GITHUB_STEP_SUMMARY or a pull-request
// comment: one line of counts, a table of findings (most severe first), and
// the suppressed findings folded away with their reasons.
func Markdown(w io.Writer, r Report, opt Options) error {
	bw := bufio.NewWriter(w)
	s := r.Summary
	fmt.Fprintln(bw, "## drvcheck")
	fmt.Fprintln(bw)
	status := markdownStatus(s.Errors, s.Warnings, "")
	if split := baselineSplit(r.Findings); split != "" {
		// Against a baseline, the status is that of the new findings.
		fresh := baseline.Fresh(r.Findings)
		status = markdownStatus(len(filter(fresh, policy.Error)), len(filter(fresh, policy.Warning)), "new ") + " (" + split + ")"
	}
	fmt.Fprintf(bw, "**%s** · %s, %s, %d suppressed · %s, %s checked\n\n", status,
		plural(s.Errors, "error"), plural(s.Warnings, "warning"), s.Suppressed,
		plural(s.GPUNodes, "GPU node"), plural(s.Objects, "object"))
	if len(r.Findings) > 0 {
		fmt.Fprintln(bw, "| | Rule | Object | Location | Message |")
		fmt.Fprintln(bw, "|---|---|---|---|---|")
		for i, f := range bySeverity(r.Findings) {
			if i == markdownRows {
				fmt.Fprintf(bw, "\n… and %d more; see the JSON or SARIF report.\n", len(r.Findings)-markdownRows)
				break
			}
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s |\n", markdownIcons.of(f.Severity), cell(f.Rule+" "+f.Title+existingMark(f)),
				cell(where(f)), location(f, opt), cell(f.Message))
		}
		fmt.Fprintln(bw)
	}
	if len(r.Suppressed) > 0 {
		fmt.Fprintf(bw, "<details><summary>%s suppressed by exceptions</summary>\n\n", plural(len(r.Suppressed), "finding"))
		fmt.Fprintln(bw, "| Rule | Object | Location | Reason | Source |")
		fmt.Fprintln(bw, "|---|---|---|---|---|")
		for i, x := range r.Suppressed {
			if i == markdownRows {
				fmt.Fprintf(bw, "\n… and %d more.\n", len(r.Suppressed)-markdownRows)
				break
			}
			reason := x.Reason
			if x.Expires != "" {
				reason += " (until " + x.Expires + ")"
			}
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s |\n", cell(x.Rule+" "+x.Title), cell(where(x.Finding)),
				location(x.Finding, opt), cell(reason), cell(x.Source))
		}
		fmt.Fprintln(bw, "\n</details>")
		fmt.Fprintln(bw)
	}
	return bw.Flush()
}

// markdownStatus is the summary's first words: the worst severity found
// and how many.
func markdownStatus(errors, warnings int, which string) string {
	switch {
	case errors > 0:
		return "❌ " + plural(errors, which+"error")
	case warnings > 0:
		return "⚠️ " + plural(warnings, which+"warning")
	}
	return "✅ No " + which + "findings"
}

// bySeverity orders findings errors first, keeping the report's order
// within each severity.
func bySeverity(fs []policy.Finding) []policy.Finding {
	out := make([]policy.Finding, 0, len(fs))
	for _, sev := range []string{policy.Error, policy.Warning, policy.Info} {
		out = append(out, filter(fs, sev)...)
	}
	return out
}

func location(f policy.Finding, opt Options) string {
	if f.File == "" {
		return ""
	}
	return "`" + strings.NewReplacer("`", "'", "|", `\|`).Replace(oneline.Escape(fileLine(f, opt))) + "`"
}

// cell makes text safe inside a table cell: pipes escaped, lines joined,
// and HTML-significant characters written as entities.
func cell(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	s = oneline.Escape(s) // ESC and BEL as escapes, the value bounded, as text does
	s = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "|", `\|`).Replace(s)
	return strings.TrimSpace(s)
}

func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// markdownIcons mark a finding's severity in the table.
var markdownIcons = levels{error: "❌", warning: "⚠️", other: "ℹ️"}

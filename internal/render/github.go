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

// GitHub prints one workflow command per finding, which GitHub Actions shows
// as an annotation on the file and line of a pull request:
//
//	::error file=k8s/pool.yaml,line=14,title=DRV010 unschedulable-affinity::Deployment/ml/trainer: ...
//
// Errors are ::error, warnings ::warning, the rest ::notice; a finding the
// --baseline already held is a ::notice marked existing. Suppressed
// findings are not annotated; a last ::notice counts them.
func GitHub(w io.Writer, r Report, opt Options) error {
	bw := bufio.NewWriter(w)
	for _, f := range r.Findings {
		fmt.Fprintln(bw, githubCommand(f, opt))
	}
	if n := len(r.Suppressed); n > 0 {
		fmt.Fprintf(bw, "::notice title=drvcheck::%s\n",
			escapeData(fmt.Sprintf("%d finding(s) suppressed by exceptions (drvcheck.io/ignore or .drvcheck.yaml)", n)))
	}
	return bw.Flush()
}

func githubCommand(f policy.Finding, opt Options) string {
	var props []string
	if f.File != "" && f.File != "-" {
		props = append(props, "file="+escapeProperty(opt.displayPath(f.File)), fmt.Sprintf("line=%d", max(f.Line, 1)))
	}
	title, level := strings.TrimSpace(f.Rule+" "+f.Title), githubLevels.of(f.Severity)
	if f.Baseline == baseline.Existing { // the pull request did not bring it: a notice, not a failure
		title, level = title+" (existing)", "notice"
	}
	props = append(props, "title="+escapeProperty(title))
	return fmt.Sprintf("::%s %s::%s", level, strings.Join(props, ","), escapeData(where(f)+": "+f.Message))
}

// escapeData escapes a command's message as the Actions runner decodes it
// (% first, then carriage return and newline); then the other control
// characters a manifest may hold (ESC, BEL) are written as escapes and the
// value bounded, as the text format does: the log is a terminal too.
func escapeData(s string) string {
	return oneline.Escape(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s))
}

// escapeProperty escapes a property value, where ":" and "," also delimit.
func escapeProperty(s string) string {
	return oneline.Escape(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s))
}

// githubLevels are the workflow commands' levels by severity.
var githubLevels = levels{error: "error", warning: "warning", other: "notice"}

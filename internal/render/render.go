package render

import (
	"fmt"
	"github.com/drvcheck/drvcheck/internal/fleet"
	"io"
	"slices"
	"time"

	"github.com/drvcheck/drvcheck/internal/exceptions"
	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/policy"
)

// Report is what every format prints.
type Report struct {
	Findings []policy.Finding
	Summary  policy.Summary
	Rules    []policy.Rule

	// Suppressed are findings held back by an exception; every format
	// counts them and most list them.
	Suppressed []exceptions.Suppressed
	// Objects are the objects checked (junit makes a test suite of each).
	Objects []object.Ref
	// Run is about the run itself, for the metrics format.
	Run Run
	// Cluster is what a fleet compares of the run's cluster (-o json);
	// Clusters, a merged result's clusters (report merge).
	Cluster  *fleet.Cluster
	Clusters []fleet.Cluster
	// Unread are the clusters of a fleet that could not be read: its
	// result is partial, and says so in every format that can.
	Unread []string
}

// Run is when and how a run ended.
type Run struct {
	// Error is the one line of a run that could not judge (exit 2); a
	// metrics report then says so instead of holding counts.
	Error    string
	ExitCode int
	Finished time.Time
	Duration time.Duration
	// UpgradeStates counts the GPU nodes by the GPU Operator's upgrade
	// state label ("" when a node has none).
	UpgradeStates map[string]int
}

// Options tune output for its destination.
type Options struct {
	Color bool // ANSI colours (text only)

	// Root is the repository root that sarif, github and markdown make file
	// paths relative to (see RepoRoot); Dir is the folder relative finding
	// paths start from. Both empty: paths are printed as they are.
	Root, Dir string
	// Version is drvcheck's version, for the SARIF tool entry.
	Version string
}

type renderer func(io.Writer, Report, Options) error

var formats = map[string]renderer{
	"text":       Text,
	"json":       JSON,
	"sarif":      SARIF,
	"github":     GitHub,
	"junit":      JUnit,
	"markdown":   Markdown,
	"prometheus": Prometheus,
	"html":       HTML,
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

// where is the finding's object, after its cluster in a fleet's result
// (report merge): every format names it so.
func where(f policy.Finding) string {
	if f.Cluster != "" {
		return f.Cluster + ": " + f.Object.String()
	}
	return f.Object.String()
}

// fileLine is where the finding was read, PATH:LINE, the path as the
// report shows it; empty for one not read from a file.
func fileLine(f policy.Finding, opt Options) string {
	if f.File == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", opt.displayPath(f.File), f.Line)
}

package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/drvcheck/drvcheck/internal/fileerr"
	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/internal/runner"
	"github.com/drvcheck/drvcheck/policy"
)

// reportFile is one --report FORMAT=FILE.
type reportFile struct{ format, path string }

// reportFiles parses every --report, so a typo fails before the run.
func (o *options) reportFiles() ([]reportFile, error) {
	var out []reportFile
	for _, r := range o.Report {
		format, path, ok := strings.Cut(r, "=")
		if !ok || path == "" {
			return nil, fmt.Errorf("--report %q: want FORMAT=FILE, e.g. sarif=drvcheck.sarif", r)
		}
		if !slices.Contains(render.Formats(), format) {
			return nil, fmt.Errorf("--report %q: format %q is not one of %s", r, format, strings.Join(render.Formats(), ", "))
		}
		out = append(out, reportFile{format, path})
	}
	return out, nil
}

// emit prints a run's result: every expired exception as a warning on
// stderr, the report in --output on stdout, and one file per --report, all
// from the one evaluation. check and scan both end here.
func (o *options) emit(e *env, res *runner.Result) error {
	warn := o.warn()
	for _, x := range res.Expired {
		warn(x.String())
	}
	rep := reportOf(res)
	opt := renderOptions()
	opt.Color = e.color
	if err := render.Render(e.stdout, o.Output.Output, rep, opt); err != nil {
		return err
	}
	files, err := o.reportFiles()
	if err != nil {
		return err
	}
	opt.Color = false
	for _, rf := range files {
		if err := writeReport(rf, rep, opt); err != nil {
			return err
		}
	}
	return nil
}

func writeReport(rf reportFile, rep render.Report, opt render.Options) error {
	f, err := os.Create(rf.path)
	if err != nil {
		return fmt.Errorf("--report %s: %w", rf.path, fileerr.Reason(err))
	}
	if err := render.Render(f, rf.format, rep, opt); err != nil {
		f.Close()
		return fmt.Errorf("--report %s: %w", rf.path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--report %s: %w", rf.path, fileerr.Reason(err))
	}
	return nil
}

// reportOf gathers what the formats print from a run's result.
func reportOf(res *runner.Result) render.Report {
	rep := render.Report{Findings: res.Findings, Summary: res.Summary, Rules: res.Rules, Suppressed: res.Suppressed}
	if res.Inventory != nil {
		for _, m := range res.Inventory.Metas() {
			rep.Objects = append(rep.Objects, m.Ref)
		}
	}
	return rep
}

// renderOptions makes file paths in reports relative to the repository
// that holds the working folder.
func renderOptions() render.Options {
	v, _ := buildVersion()
	opt := render.Options{Version: v}
	if wd, err := os.Getwd(); err == nil {
		opt.Dir, opt.Root = wd, render.RepoRoot(wd)
	}
	return opt
}

// why says what a run lacks, by the need a rule's meta names.
var why = map[string]string{
	runner.NeedCatalog: "no --matrix or --registry given",
	runner.NeedNodes:   "no Node in the input (give the nodes' manifests, or check --nodes-from-cluster)",
}

// ruleList names rules as "DRV001 (missing-driver-image) is" or
// "DRV001 (…), DRV002 (…) are".
func ruleList(rules []policy.Rule) string {
	names := make([]string, len(rules))
	for i, r := range rules {
		names[i] = fmt.Sprintf("%s (%s)", r.ID, r.Title)
	}
	if len(names) == 1 {
		return names[0] + " is"
	}
	return strings.Join(names, ", ") + " are"
}

// conclude ends a run of the rules (check, scan): it names the rules that
// could not judge (their meta says what they need), prints the report, and
// turns --fail-on into the exit code.
func (o *options) conclude(e *env, res *runner.Result) error {
	for _, s := range res.Skipped {
		fmt.Fprintf(e.stderr, "drvcheck: %s; %s skipped\n", why[s.Need], ruleList(s.Rules))
	}
	if err := o.emit(e, res); err != nil {
		return err
	}
	if o.fails(res.Findings) {
		return errFindings
	}
	return nil
}

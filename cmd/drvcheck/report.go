package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/drvcheck/drvcheck/internal/baseline"
	"github.com/drvcheck/drvcheck/internal/fleet"
	"github.com/drvcheck/drvcheck/internal/pushgateway"
	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/internal/report"
	"github.com/drvcheck/drvcheck/internal/runner"
	"github.com/drvcheck/drvcheck/policy"
)

// sinks are where --report and --pushgateway send the report; parsed
// before the run, so a typo fails before it.
func (o *options) sinks() (report.Sinks, error) {
	targets, err := report.Parse(o.Report)
	if err != nil {
		return report.Sinks{}, err
	}
	if o.Pushgateway != "" {
		if _, err := pushgateway.GroupURL(o.Pushgateway); err != nil {
			return report.Sinks{}, err
		}
	}
	s := report.Sinks{Targets: targets, Pushgateway: o.Pushgateway}
	if o.cluster != nil {
		s.Cluster = o.clusterOptions()
	}
	return s, nil
}

// emit prints a run's result: every expired exception as a warning on
// stderr, the report in --output on stdout, and the report to every sink,
// all from the one evaluation. check and scan both end here.
func (o *options) emit(ctx context.Context, res *runner.Result, code int) error {
	warn := o.warn()
	for _, x := range res.Expired {
		warn(x.String())
	}
	return o.deliver(ctx, o.reportOf(res, code))
}

// deliver prints rep in --output on stdout and sends it to every sink.
func (o *options) deliver(ctx context.Context, rep render.Report) error {
	opt := renderOptions()
	opt.Color = o.env.color
	if err := render.Render(o.env.stdout, o.Output.Output, rep, opt); err != nil {
		return err
	}
	sinks, err := o.sinks()
	if err != nil {
		return err
	}
	opt.Color = false
	return sinks.Deliver(ctx, rep, opt)
}

// failed tells the sinks that the run could not judge, and returns err,
// the reason, as the run's error.
func (o *options) failed(ctx context.Context, err error) error {
	sinks, serr := o.sinks()
	if serr != nil {
		return err
	}
	rep := render.Report{Run: render.Run{Error: outLine(err.Error()), ExitCode: exitError,
		Finished: time.Now(), Duration: time.Since(o.start)}}
	if derr := sinks.Deliver(ctx, rep, renderOptions()); derr != nil {
		return fmt.Errorf("%w; and reporting the failure failed too: %v", err, derr)
	}
	return err
}

// reportOf gathers what the formats print from a run's result.
func (o *options) reportOf(res *runner.Result, code int) render.Report {
	rep := render.Report{Findings: res.Findings, Summary: res.Summary, Rules: res.Rules, Suppressed: res.Suppressed,
		Run: render.Run{ExitCode: code, Finished: time.Now(), Duration: time.Since(o.start), UpgradeStates: upgradeStates(res)}}
	if res.Inventory != nil {
		for _, m := range res.Inventory.Metas() {
			rep.Objects = append(rep.Objects, m.Ref)
		}
	}
	c := fleet.Of(o.ClusterName, res.Facts, res.Profile)
	c.Labels, _ = fleet.ParseLabels(o.ClusterLabels) // checked before the run
	rep.Cluster = &c
	return rep
}

// upgradeStates counts the GPU nodes by upgrade state.
func upgradeStates(res *runner.Result) map[string]int {
	out := map[string]int{}
	if res.Facts == nil {
		return out
	}
	for _, f := range res.Facts.List() {
		if f.GPU {
			out[f.UpgradeState]++
		}
	}
	return out
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

// loadBaseline reads --baseline before the run, as the run's other given
// files are read (repofs.ReadGiven): a file inside the repository of the
// paths or of the working folder (a run over standard input has no path
// to name one) is confined to it, a regular file within the limits.
func (o *options) loadBaseline(paths []string) error {
	if o.Baseline == "" {
		return nil
	}
	fsys := o.files(append(slices.Clone(paths), "."))
	err := fsys.StreamGiven(o.Baseline, func(r io.Reader) error {
		var err error
		o.base, err = baseline.Read(o.Baseline, r)
		return err
	})
	if err != nil {
		return fmt.Errorf("--baseline %w", err)
	}
	return nil
}

// conclude ends a run of the rules (check, scan): it names the rules that
// could not judge (their meta says what they need), prints the report, and
// turns --fail-on into the exit code. A run that failed before it ends
// here still tells the sinks.
func (o *options) conclude(ctx context.Context, res *runner.Result, err error) error {
	if err != nil {
		return o.failed(ctx, err)
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(o.env.stderr, "drvcheck: %s; %s skipped\n", why[s.Need], ruleList(s.Rules))
	}
	failing := res.Findings
	if o.base != nil {
		o.base.Mark(res.Findings)
		failing = baseline.Fresh(res.Findings)
	}
	code := exitOK
	if o.fails(failing) {
		code = exitFindings
	}
	if err := o.emit(ctx, res, code); err != nil {
		return err
	}
	if code == exitFindings {
		return errFindings
	}
	return nil
}

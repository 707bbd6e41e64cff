package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/drvcheck/drvcheck/internal/cluster"
	"github.com/drvcheck/drvcheck/internal/config"
	"github.com/drvcheck/drvcheck/internal/fleet"
	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/internal/report"
	"github.com/drvcheck/drvcheck/policy"
)

const reportWhy = "want report merge RESULT.json... or report merge configmap=NS/NAME --context C..., merge is the one thing it does"

// staleReport is the age past which a kept report is named as old: a
// nightly run has missed at least one night.
const staleReport = 48 * time.Hour

// reportCmd merges the JSON results of several runs, one per cluster (a
// CronJob or a CI matrix job each), into one fleet result: each finding
// tagged with its cluster, the summaries added up, and the fleet's rules
// (DRV050) judged over the clusters, per --group-by group. A result is a
// file, or the report ConfigMap (configmap=NS/NAME) each cluster's
// nightly run keeps, read from every --context.
func reportCmd(o *options) runFunc {
	groupBy := o.fs.String("group-by", "", "judge skew (DRV050) within each group of clusters that share the value of this label (--cluster-label of their runs), e.g. env")
	all := o.addAllContexts("read the report ConfigMap (configmap=NS/NAME) from the cluster of every context of the kubeconfig")
	o.refuse(func() error { return fleetRefusals(o) })
	o.refuse(func() error {
		if o.fs.Changed("group-by") && len(validation.IsQualifiedName(*groupBy)) > 0 {
			return fmt.Errorf("report merge: --group-by %q: want a label key, e.g. env", *groupBy)
		}
		return nil
	})
	return func(ctx context.Context, o *options, args []string) error {
		if args[0] != "merge" || len(args) < 2 {
			return errors.New("report: " + reportWhy)
		}
		files, kept, err := mergeSources(args[1:])
		if err != nil {
			return err
		}
		if len(kept) == 0 && (len(o.cluster.Contexts) > 0 || *all) {
			return errors.New("report merge: --context and --all-contexts say which clusters' report ConfigMaps to read: name the ConfigMap (configmap=NS/NAME)")
		}
		g, err := readFiles(files)
		if err != nil {
			return err
		}
		var contexts []string
		if len(kept) > 0 {
			if contexts, err = o.keptContexts(*all); err != nil {
				return err
			}
		}
		for _, t := range kept {
			read := gather(ctx, o, contexts, o.readKept(t))
			g.results, g.from = append(g.results, read.results...), append(g.from, read.from...)
			g.failed, g.total = append(g.failed, read.failed...), g.total+read.total
		}
		return o.emitGathered(ctx, g, *groupBy)
	}
}

// readFiles reads every result file, a folder's .json files each.
func readFiles(args []string) (gathered[fleet.Result], error) {
	var g gathered[fleet.Result]
	for _, a := range args {
		paths, err := fleet.Files(a)
		if err != nil {
			return g, fmt.Errorf("report merge: %w", err)
		}
		for _, p := range paths {
			r, err := fleet.Read(p)
			if err != nil {
				return g, fmt.Errorf("report merge: %w", err)
			}
			g.results, g.from = append(g.results, r), append(g.from, p)
		}
	}
	g.total = len(g.results)
	return g, nil
}

// mergeSources splits report merge's arguments into result files and
// report ConfigMaps.
func mergeSources(args []string) (files []string, kept []report.Target, err error) {
	for _, a := range args {
		if !strings.HasPrefix(a, config.ConfigMapReport+"=") {
			files = append(files, a)
			continue
		}
		ts, err := report.Parse([]string{a})
		if err != nil || ts[0].Path == "" {
			return nil, nil, fmt.Errorf("report merge: %q: want configmap=NAMESPACE/NAME, e.g. configmap=drvcheck/drvcheck-report", a)
		}
		if slices.Contains(kept, ts[0]) {
			return nil, nil, fmt.Errorf("report merge: %s given twice", a)
		}
		kept = append(kept, ts[0])
	}
	return files, kept, nil
}

// keptContexts are the clusters whose report ConfigMaps are read: those
// --context names, or every context, or the current one.
func (o *options) keptContexts(all bool) ([]string, error) {
	names, _, err := o.contexts(all)
	if err != nil || len(names) > 0 {
		return names, err
	}
	current, err := cluster.CurrentContext(o.clusterOptions())
	if err != nil {
		return nil, fmt.Errorf("report merge: %w", err)
	}
	if current == "" {
		return nil, errors.New("report merge: the kubeconfig has no current context: say which clusters' reports to read with --context or --all-contexts")
	}
	return []string{current}, nil
}

// readKept reads the report a cluster's run kept in the ConfigMap t. A
// report older than staleReport is named, with its age: a cluster whose
// nightly run stopped would otherwise read as its last night's answer.
func (o *options) readKept(t report.Target) readOne[fleet.Result] {
	return func(ctx context.Context, name string) (fleet.Result, []string, error) {
		ns, cm, _ := strings.Cut(t.Path, "/")
		c, err := cluster.Connect(o.clusterOptionsFor(name))
		if err != nil {
			return fleet.Result{}, nil, err
		}
		data, err := c.ReadReport(ctx, ns, cm)
		if err != nil {
			return fleet.Result{}, nil, err
		}
		r, finished, err := fleet.FromReport(data, "ConfigMap "+t.Path, name)
		if err != nil {
			return fleet.Result{}, nil, err
		}
		var notes []string
		if finished.After(o.start.Add(time.Hour)) {
			notes = append(notes, fmt.Sprintf("cluster %s: its report in ConfigMap %s says it finished at %s, ahead of this machine's clock", name, t.Path, finished.UTC().Format(time.RFC3339)))
		}
		if age := o.start.Sub(finished); age > staleReport {
			notes = append(notes, fmt.Sprintf("cluster %s: its report in ConfigMap %s is from %s, %d days old: has its scheduled run stopped?",
				name, t.Path, finished.UTC().Format(time.RFC3339), int(age.Hours()/24)))
		}
		return r, notes, nil
	}
}

// emitFleet judges a fleet's merged result by the rules that read
// input.clusters, prints it in --output and delivers it to the --report
// files. A fleet with a cluster that could not be read (merged.Unread)
// says so in every format that can, and in the metrics' exit code; the
// caller ends the run with exit 2.
func (o *options) emitFleet(ctx context.Context, merged fleet.Result) error {
	partial := len(merged.Unread) > 0
	engine, err := policy.New(ctx, o.runnerConfig(nil).PolicyOptions())
	if err != nil {
		return err
	}
	found, err := fleetFindings(ctx, engine, merged.Clusters)
	if err != nil {
		return fmt.Errorf("%s: %w", o.fs.Name(), err)
	}
	merged.Findings = append(merged.Findings, found...)
	policy.Sort(merged.Findings)
	merged.Summary.Count(found, 1)
	code := exitOK
	switch {
	case partial:
		code = exitError
	case o.fails(merged.Findings):
		code = exitFindings
	}
	rep := render.Report{Findings: merged.Findings, Summary: merged.Summary, Rules: engine.Rules(), Suppressed: merged.Suppressed,
		Clusters: merged.Clusters, Unread: merged.Unread, Run: render.Run{ExitCode: code, Finished: time.Now(), Duration: time.Since(o.start)}}
	if err := o.deliver(ctx, rep); err != nil {
		return err
	}
	if code == exitFindings {
		return errFindings
	}
	return nil
}

// fleetFindings are the rules' findings over the fleet's clusters alone
// (input.clusters): a cluster's own rules find nothing in it.
func fleetFindings(ctx context.Context, engine *policy.Engine, clusters []fleet.Cluster) ([]policy.Finding, error) {
	var doc []any
	data, err := json.Marshal(clusters)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	in, err := policy.NewInput(map[string]any{"clusters": doc})
	if err != nil {
		return nil, err
	}
	return engine.Eval(ctx, in)
}

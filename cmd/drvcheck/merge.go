package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/drvcheck/drvcheck/internal/fleet"
	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/policy"
)

const reportWhy = "want report merge RESULT.json...; merge is the one thing it does"

// runReport merges the JSON results of several runs, one per cluster
// (a CronJob or a CI matrix job each), into one fleet result: each finding
// tagged with its cluster, the summaries added up, and the fleet's rules
// (DRV050) judged over the clusters.
func runReport(ctx context.Context, o *options, args []string) error {
	if args[0] != "merge" || len(args) < 2 {
		return errors.New("report: " + reportWhy)
	}
	paths := args[1:]
	results := make([]fleet.Result, len(paths))
	for i, p := range paths {
		r, err := fleet.Read(p)
		if err != nil {
			return fmt.Errorf("report merge: %w", err)
		}
		results[i] = r
	}
	merged, err := fleet.Merge(paths, results)
	if err != nil {
		return fmt.Errorf("report merge: %w", err)
	}
	return o.emitFleet(ctx, merged, false)
}

// emitFleet judges a fleet's merged result by the rules that read
// input.clusters, prints it in --output and delivers it to the --report
// files. A fleet with a cluster that could not be read (partial) says so
// in the metrics' exit code; the caller ends the run with exit 2.
func (o *options) emitFleet(ctx context.Context, merged fleet.Result, partial bool) error {
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
		Clusters: merged.Clusters, Run: render.Run{ExitCode: code, Finished: time.Now(), Duration: time.Since(o.start)}}
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

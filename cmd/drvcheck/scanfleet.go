package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/drvcheck/drvcheck/internal/fleet"
	"github.com/drvcheck/drvcheck/internal/runner"
)

// fleetParallel bounds how many clusters are read at once: each read
// holds its cluster's objects in memory.
const fleetParallel = 4

// scanFleet scans each context's cluster, at most fleetParallel at once,
// each bounded by --request-timeout, and prints one fleet result, as
// report merge of their -o json would. A cluster that cannot be read is
// one error line naming it, never a lost run: the others are still
// reported, and the run exits 2.
func scanFleet(ctx context.Context, o *options, contexts []string) error {
	if err := fleetRefusals(o); err != nil {
		return err
	}
	results := make([]fleet.Result, len(contexts))
	notes := make([][]string, len(contexts))
	errs := make([]error, len(contexts))
	sem := make(chan struct{}, fleetParallel)
	var wg sync.WaitGroup
	for i, name := range contexts {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i], notes[i], errs[i] = scanOne(ctx, o, name)
		})
	}
	wg.Wait()
	var read []fleet.Result
	var names, failed []string
	warn := o.warn()
	for i, name := range contexts { // in the order given, whatever ended first
		for _, n := range notes[i] {
			warn(n)
		}
		if errs[i] != nil {
			fmt.Fprintf(o.stderr, "drvcheck: cluster %s: %s\n", name, outLine(errs[i].Error()))
			failed = append(failed, name)
			continue
		}
		read, names = append(read, results[i]), append(names, name)
	}
	if len(read) > 0 {
		merged, err := fleet.Merge(names, read)
		if err != nil {
			return fmt.Errorf("scan: %w", err)
		}
		err = o.emitFleet(ctx, merged, len(failed) > 0)
		if err != nil && !errors.Is(err, errFindings) || len(failed) == 0 {
			return err
		}
	}
	return fmt.Errorf("scan: %d of %d clusters could not be read (%s)", len(failed), len(contexts), strings.Join(failed, ", "))
}

// scanOne is one cluster's run, as its -o json would print it, and
// what its run would warn of: expired exceptions, rules skipped.
func scanOne(ctx context.Context, o *options, name string) (fleet.Result, []string, error) {
	res, err := runner.Run(ctx, o.runnerConfig(nil), runner.Live(ctx, o.clusterOptionsFor(name)))
	if err != nil {
		return fleet.Result{}, nil, err
	}
	var notes []string
	for _, x := range res.Expired {
		notes = append(notes, "cluster "+name+": "+x.String())
	}
	for _, s := range res.Skipped {
		notes = append(notes, fmt.Sprintf("cluster %s: %s; %s skipped", name, why[s.Need], ruleList(s.Rules)))
	}
	c := fleet.Of(name, res.Facts, res.Profile)
	return fleet.Result{Findings: res.Findings, Suppressed: res.Suppressed, Summary: res.Summary, Cluster: &c}, notes, nil
}

// fleetRefusals are the sinks and comparisons that name one cluster.
func fleetRefusals(o *options) error {
	sinks, err := o.sinks()
	if err != nil {
		return err
	}
	for _, t := range sinks.Targets {
		if t.ConfigMap() {
			return errors.New("scan: --report configmap= writes into one cluster: with several --context, write a file and keep it where you like")
		}
	}
	switch {
	case sinks.Pushgateway != "":
		return errors.New("scan: --pushgateway pushes one cluster's metrics: with several --context, push from each cluster's own run")
	case o.Baseline != "":
		return errors.New("scan: --baseline compares one cluster's findings: with several --context, compare each cluster's own run")
	case o.ClusterName != "":
		return errors.New("scan: --cluster-name names one cluster: with several --context, each is named by its context")
	}
	return nil
}

package main

import (
	"context"
	"fmt"

	"github.com/drvcheck/drvcheck/internal/fleet"
	"github.com/drvcheck/drvcheck/internal/runner"
)

// scanFleet scans each context's cluster, at most fleetParallel at once,
// each bounded by --request-timeout, and prints one fleet result, as
// report merge of their -o json would. A cluster that cannot be read is
// one error line naming it: the others are still reported, and the run
// exits 2.
func scanFleet(ctx context.Context, o *options, contexts []string) error {
	if err := fleetRefusals(o); err != nil {
		return err
	}
	return o.emitGathered(ctx, gather(ctx, o, contexts, o.scanOne), "")
}

// scanOne is one cluster's run, as its -o json would print it, and
// what its run would warn of: expired exceptions, rules skipped.
func (o *options) scanOne(ctx context.Context, name string) (fleet.Result, []string, error) {
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

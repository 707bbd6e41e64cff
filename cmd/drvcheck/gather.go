package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/drvcheck/drvcheck/internal/fleet"
)

// fleetParallel bounds how many clusters are read at once: each read
// holds its cluster's objects in memory.
const fleetParallel = 4

// readOne is one cluster's result (a scan, the report it keeps, its
// audit or its rollout), with what its run would warn of.
type readOne[T any] func(ctx context.Context, name string) (T, []string, error)

// gathered is what a fleet's reads gave: the results in the order their
// clusters were named, and the clusters that could not be read.
type gathered[T any] struct {
	results []T
	from    []string // where each result came from
	failed  []string
	total   int
}

// gather reads each cluster, at most fleetParallel at once. A cluster
// that cannot be read is one error line naming it, never a lost run.
func gather[T any](ctx context.Context, o *options, names []string, read readOne[T]) gathered[T] {
	results := make([]T, len(names))
	notes := make([][]string, len(names))
	errs := make([]error, len(names))
	sem := make(chan struct{}, fleetParallel)
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i], notes[i], errs[i] = read(ctx, name)
		})
	}
	wg.Wait()
	g := gathered[T]{total: len(names)}
	warn := o.warn()
	for i, name := range names { // in the order given, whatever ended first
		for _, n := range notes[i] {
			warn(n)
		}
		if errs[i] != nil {
			fmt.Fprintf(o.stderr, "drvcheck: %s\n", outLine("cluster "+name+": "+errs[i].Error()))
			g.failed = append(g.failed, name)
			continue
		}
		g.results, g.from = append(g.results, results[i]), append(g.from, name)
	}
	return g
}

// emitGathered merges what was read and prints it as one fleet result;
// a cluster that could not be read ends the run with exit 2 once the
// others are reported.
func (o *options) emitGathered(ctx context.Context, g gathered[fleet.Result], groupBy string) error {
	verb := o.fs.Name()
	if verb == "report" {
		verb = "report merge"
	}
	if len(g.results) == 0 {
		return g.unread(verb)
	}
	merged, err := fleet.Merge(g.from, g.results)
	if err == nil {
		err = merged.GroupBy(groupBy)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", verb, err)
	}
	merged.Unread = append(merged.Unread, g.failed...)
	err = o.emitFleet(ctx, merged)
	switch {
	case err != nil && !errors.Is(err, errFindings):
		return err
	case len(g.failed) > 0:
		return g.unread(verb)
	case len(merged.Unread) > 0: // a partial fleet result, merged again
		return fmt.Errorf("%s: the fleet lacks %d cluster(s) its results could not read (%s)", verb, len(merged.Unread), outLine(strings.Join(merged.Unread, ", ")))
	}
	return err
}

// unread is the error of a fleet with clusters that could not be read.
func (g gathered[T]) unread(verb string) error {
	return fmt.Errorf("%s: %d of %d clusters could not be read (%s)", verb, len(g.failed), g.total, outLine(strings.Join(g.failed, ", ")))
}

// fleetRefusals are the sinks and comparisons that name one cluster.
func fleetRefusals(o *options) error {
	sinks, err := o.sinks()
	if err != nil {
		return err
	}
	verb := o.fs.Name()
	for _, t := range sinks.Targets {
		if t.ConfigMap() {
			return fmt.Errorf("%s: --report configmap= writes into one cluster: a fleet's result goes to a file (--report FORMAT=FILE)", verb)
		}
	}
	switch {
	case sinks.Pushgateway != "":
		return fmt.Errorf("%s: --pushgateway pushes one cluster's metrics: push from each cluster's own run", verb)
	case o.Baseline != "":
		return fmt.Errorf("%s: --baseline compares one cluster's findings: compare each cluster's own run", verb)
	// A config file's cluster-name and cluster-label are the check's of
	// its own cluster: a fleet's command names each cluster otherwise.
	case o.fs.Changed("cluster-name"):
		return fmt.Errorf("%s: --cluster-name names one cluster: in a fleet each is named by its context or its result", verb)
	case o.fs.Changed("cluster-label"):
		return fmt.Errorf("%s: --cluster-label labels one cluster: give it to each cluster's own run", verb)
	}
	return nil
}

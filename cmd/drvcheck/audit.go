package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/drvcheck/drvcheck/internal/runner"
	"github.com/drvcheck/drvcheck/policy"
)

// The rules audit reports, by id.
const (
	ruleMissingImage = "DRV001"
	ruleIncomplete   = "DRV002"
)

func runAudit(ctx context.Context, e *env, args []string) error {
	o := newFlags("audit", "[PATH...]", e.stderr)
	cf := o.addClusterFlags()
	if err := o.parse(args); err != nil {
		return err
	}
	if !o.sourcesConfigured() {
		return errors.New("audit: needs --matrix or --registry to know which driver images exist")
	}
	paths := o.fs.Args()
	var res *runner.Result
	var err error
	if len(paths) == 0 {
		res, err = scanNodes(ctx, e, o, cf)
	} else {
		res, err = runner.Check(ctx, o.runnerConfig(e, paths))
	}
	if err != nil {
		return err
	}
	// audit states facts: an exception does not make a missing image exist.
	fs := res.Findings
	for _, s := range res.Suppressed {
		fs = append(fs, s.Finding)
	}
	return printAudit(e, fs)
}

// printAudit prints one MISSING line per node, sorted by node name, or OK.
// A GPU node whose tag cannot be made is not a pass: it is named on stderr
// and the audit exits 2.
func printAudit(e *env, fs []policy.Finding) error {
	var missing, incomplete []policy.Finding
	for _, f := range fs {
		switch f.Rule {
		case ruleMissingImage:
			missing = append(missing, f)
		case ruleIncomplete:
			incomplete = append(incomplete, f)
		}
	}
	byNode := func(a, b policy.Finding) int { return compare(a.Node, b.Node) }
	slices.SortFunc(missing, byNode)
	slices.SortFunc(incomplete, byNode)
	for _, f := range missing {
		fmt.Fprintf(e.stdout, "%s MISSING %s\n", f.Node, f.Tag)
	}
	if len(incomplete) > 0 {
		for _, f := range incomplete[1:] {
			fmt.Fprintf(e.stderr, "drvcheck: audit: %s\n", f.Message)
		}
		return fmt.Errorf("audit: %s", incomplete[0].Message)
	}
	if len(missing) > 0 {
		return errFindings
	}
	fmt.Fprintln(e.stdout, "OK")
	return nil
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

package main

import (
	"context"

	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/policy"
)

// runVerify runs the Rego unit tests of the built-in rules and of the
// user's policies (DIR arguments, --policy and the config's policy list).
// Exit 0 when every test passes, 1 when one fails or errs, 2 when the
// policies do not compile.
func runVerify(ctx context.Context, e *env, args []string) error {
	o := newBareFlags(e, "verify", "[DIR...]")
	o.bind(&o.Rules, &o.Output)
	o.addConfigFlag()
	if err := o.parse(args); err != nil {
		return err
	}
	ctx, cancel := o.deadline(ctx)
	defer cancel()
	format := "text"
	if o.fs.Changed("output") {
		format = o.Output.Output
	}
	if err := render.TextOrJSON("verify", format); err != nil {
		return err
	}
	dirs := append(o.fs.Args(), o.Policy...)
	opt := o.runnerConfig(e, nil).PolicyOptions()
	opt.Policies = dirs
	results, err := policy.Verify(ctx, opt)
	if err != nil {
		return err
	}
	if err := render.Verify(e.stdout, format, results); err != nil {
		return err
	}
	for _, r := range results {
		if r.Outcome == policy.Fail || r.Outcome == policy.Erred {
			return errFindings
		}
	}
	return nil
}

package main

import (
	"context"
	"slices"

	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/policy"
)

// The commands about the rules themselves: rules lists them, verify runs
// their Rego unit tests.

// runRules lists the rules a run evaluates, built-in and the user's
// (--policy), as each rule's meta says them: docs/rules.md is this
// command's markdown.
func runRules(ctx context.Context, o *options, _ []string) error {
	format := o.textUnlessGiven()
	if err := render.RulesFormat(format); err != nil {
		return err
	}
	engine, err := policy.New(ctx, o.runnerConfig(nil).PolicyOptions())
	if err != nil {
		return err
	}
	return render.Rules(o.env.stdout, format, engine.Rules())
}

// textUnlessGiven is the output format of verify and rules: text unless
// --output is given on the command line (the config's output is for the
// findings of check and scan).
func (o *options) textUnlessGiven() string {
	if o.fs.Changed("output") {
		return o.Output.Output
	}
	return "text"
}

// runVerify runs the Rego unit tests of the built-in rules and of the
// user's policies (DIR arguments, --policy and the config's policy list).
// Exit 0 when every test passes, 1 when one fails or errs, 2 when the
// policies do not compile.
func runVerify(ctx context.Context, o *options, dirs []string) error {
	format := o.textUnlessGiven()
	if err := render.TextOrJSON("verify", format); err != nil {
		return err
	}
	opt := o.runnerConfig(nil).PolicyOptions()
	opt.Policies = append(slices.Clone(dirs), o.Policy...)
	results, err := policy.Verify(ctx, opt)
	if err != nil {
		return err
	}
	if err := render.Verify(o.env.stdout, format, results); err != nil {
		return err
	}
	for _, r := range results {
		if r.Outcome == policy.Fail || r.Outcome == policy.Erred {
			return errFindings
		}
	}
	return nil
}

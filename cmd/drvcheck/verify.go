package main

import (
	"context"
	"slices"

	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/policy"
)

// verifyCmd runs the Rego unit tests of the built-in rules and of the
// user's policies (DIR arguments, --policy and the config's policy list).
// Exit 0 when every test passes, 1 when one fails or errs, 2 when the
// policies do not compile.
func verifyCmd(*options) runFunc {
	return func(ctx context.Context, o *options, dirs []string) error {
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
}

package main

import (
	"context"

	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/policy"
)

// rulesCmd lists the rules a run evaluates, built-in and the user's
// (--policy), as each rule's meta says them: docs/rules.md is this
// command's markdown.
func rulesCmd(*options) runFunc {
	return func(ctx context.Context, o *options, _ []string) error {
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

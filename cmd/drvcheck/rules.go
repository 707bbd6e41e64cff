package main

import (
	"context"
	"fmt"

	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/policy"
)

// runRules lists the rules a run evaluates, built-in and the user's
// (--policy), as each rule's meta says them: docs/rules.md is this
// command's markdown.
func runRules(ctx context.Context, e *env, args []string) error {
	o := newBareFlags(e, "rules", "")
	o.bind(&o.Rules, &o.Output)
	o.addConfigFlag()
	if err := o.parse(args); err != nil {
		return err
	}
	if o.fs.NArg() > 0 {
		return fmt.Errorf("rules takes no argument, got %q", o.fs.Arg(0))
	}
	ctx, cancel := o.deadline(ctx)
	defer cancel()
	format := "text"
	if o.fs.Changed("output") {
		format = o.Output.Output
	}
	if err := render.RulesFormat(format); err != nil {
		return err
	}
	engine, err := policy.New(ctx, o.runnerConfig(e, nil).PolicyOptions())
	if err != nil {
		return err
	}
	return render.Rules(e.stdout, format, engine.Rules())
}

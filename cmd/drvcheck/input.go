package main

import (
	"context"

	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/internal/runner"
)

// runInput prints the input document the rules would read, as conftest
// parse does: from the manifests under PATH, or from the live cluster
// without PATH. Users write their rules against what it shows.
func runInput(ctx context.Context, e *env, args []string) error {
	o := newFlags(e, "input", "[PATH...]")
	o.addClusterFlags()
	if err := o.parse(args); err != nil {
		return err
	}
	ctx, cancel := o.deadline(ctx)
	defer cancel()
	paths := o.fs.Args()
	read := reader(ctx, e, o, paths)
	doc, err := runner.Document(ctx, o.runnerConfig(e, paths), read)
	if err != nil {
		return err
	}
	return render.Input(e.stdout, doc)
}

package main

import (
	"context"

	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/internal/runner"
)

// runInput prints the input document the rules would read, as conftest
// parse does: from the manifests under PATH, or from the live cluster
// without PATH. Users write their rules against what it shows.
func runInput(ctx context.Context, o *options, paths []string) error {
	doc, err := runner.Document(ctx, o.runnerConfig(paths), o.reader(ctx, paths))
	if err != nil {
		return err
	}
	return render.Input(o.env.stdout, doc)
}

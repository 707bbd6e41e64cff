package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/drvcheck/drvcheck/internal/runner"
)

// checkTag prints, on one line, the tag and whether any configured source
// has it: "TAG PRESENT in SOURCE[, SOURCE]" (exit 0) or "TAG MISSING from
// SOURCES" (exit 1). A source that cannot be read is exit 2, never MISSING.
func checkTag(ctx context.Context, e *env, o *options, tag string) error {
	if !o.sourcesConfigured() {
		return errors.New("tag --check: needs --matrix or --registry to know which driver images exist")
	}
	cat, err := runner.CatalogContext(ctx, o.runnerConfig(e, nil))
	if err != nil {
		return err
	}
	if have := cat.Lookup(tag); len(have) > 0 {
		fmt.Fprintf(e.stdout, "%s PRESENT in %s\n", tag, strings.Join(have, ", "))
		return nil
	}
	fmt.Fprintf(e.stdout, "%s MISSING from %s\n", tag, cat.Describe())
	return errFindings
}

package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/internal/runner"
)

func runTag(ctx context.Context, e *env, args []string) error {
	o := newFlags(e, "tag", "NODE [PATH...]")
	check := o.fs.Bool("check", false, "also say whether the tag exists, and in which of the --matrix and --registry sources (exit 1 when in none)")
	o.addClusterFlags()
	if err := o.parse(args); err != nil {
		return err
	}
	if o.fs.NArg() < 1 {
		return errors.New("tag: no NODE given")
	}
	name, paths := o.fs.Arg(0), o.fs.Args()[1:]
	n, err := findNode(ctx, e, o, name, paths)
	if err != nil {
		return err
	}
	f := nodefacts.Of(n)
	if f.Tag == "" {
		return fmt.Errorf("tag: node %s: no tag: %s", n.Name, describeProblems(f.Problems))
	}
	if !f.GPU {
		fmt.Fprintf(e.stderr, "drvcheck: note: node %s does not carry %s=true\n", n.Name, nodefacts.GPUPresent)
	}
	if !*check {
		return render.Tag(e.stdout, f.Tag)
	}
	return checkTag(ctx, e, o, f.Tag)
}

// findNode gets the node named name from the manifests under paths, or
// from the live cluster without paths.
func findNode(ctx context.Context, e *env, o *options, name string, paths []string) (*corev1.Node, error) {
	if len(paths) == 0 {
		n, err := runner.LiveNode(ctx, o.clusterOptions(), name)
		if err != nil {
			return nil, fmt.Errorf("tag: %w", err)
		}
		return n, nil
	}
	inv, err := runner.Files(o.runnerConfig(e, paths))(false)
	if err != nil {
		return nil, err
	}
	for _, n := range inv.Nodes {
		if n.Name == name {
			return n, nil
		}
	}
	return nil, fmt.Errorf("tag: node %s not found in %s", name, strings.Join(paths, ", "))
}

// checkTag prints whether any configured source has tag (exit 0) or none
// does (exit 1). A source that cannot be read is exit 2, never MISSING.
func checkTag(ctx context.Context, e *env, o *options, tag string) error {
	if !o.Registry.Configured() {
		return errors.New("tag --check: needs --matrix or --registry to know which driver images exist")
	}
	cfg := o.runnerConfig(e, nil)
	cat, err := catalog.Read(ctx, cfg.Sources())
	if err == nil {
		cat, err = runner.Confirm(ctx, cfg, cat, []string{tag})
	}
	if err != nil {
		return err
	}
	v := cat.Check(tag)
	if err := render.TagCheck(e.stdout, tag, v, cat.Describe()); err != nil || v.Present {
		return err
	}
	return errFindings
}

func describeProblems(ps []nodefacts.Problem) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("label %s is %s", p.Label, p.Reason)
	}
	return strings.Join(parts, ", ")
}

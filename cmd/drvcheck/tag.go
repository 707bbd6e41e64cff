package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/runner"
)

func runTag(ctx context.Context, e *env, args []string) error {
	o := newFlags("tag", "NODE [PATH...]", e.stderr)
	check := o.fs.Bool("check", false, "also say whether the tag exists, and in which of the --matrix and --registry sources (exit 1 when in none)")
	cf := o.addClusterFlags()
	if err := o.parse(args); err != nil {
		return err
	}
	if o.fs.NArg() < 1 {
		return errors.New("tag: no NODE given")
	}
	name, paths := o.fs.Arg(0), o.fs.Args()[1:]
	if len(paths) == 0 {
		n, err := liveNode(ctx, cf, name)
		if err != nil {
			return fmt.Errorf("tag: %w", err)
		}
		return printTag(ctx, e, o, n, *check)
	}
	inv, err := runner.Inventory(o.runnerConfig(e, paths), false)
	if err != nil {
		return err
	}
	for _, n := range inv.Nodes {
		if n.Name == name {
			return printTag(ctx, e, o, n, *check)
		}
	}
	return fmt.Errorf("tag: node %s not found in %s", name, strings.Join(paths, ", "))
}

// printTag prints the node's tag, or fails naming the labels it lacks;
// with check, the line also says whether the tag exists and where.
func printTag(ctx context.Context, e *env, o *options, n *corev1.Node, check bool) error {
	f := nodefacts.Of(n)
	if f.Tag == "" {
		return fmt.Errorf("tag: node %s: no tag: %s", n.Name, describeProblems(f.Problems))
	}
	if !f.GPU {
		fmt.Fprintf(e.stderr, "drvcheck: note: node %s does not carry %s=true\n", n.Name, nodefacts.GPUPresent)
	}
	if check {
		return checkTag(ctx, e, o, f.Tag)
	}
	fmt.Fprintln(e.stdout, f.Tag)
	return nil
}

func describeProblems(ps []nodefacts.Problem) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("label %s is %s", p.Label, p.Reason)
	}
	return strings.Join(parts, ", ")
}

package main

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/drvcheck/drvcheck/internal/operator/change"
	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/internal/runner"
	"github.com/drvcheck/drvcheck/policy"
)

// diffCmd says what a change of the GPU Operator's configuration (its
// ClusterPolicy, NVIDIADrivers or chart values) does to the fleet:
// no-op, restart-only or a full rollout, per scope and per node, and for
// a rollout, the rollout itself as plan --all simulates it
// (runner.Diff).
func diffCmd(o *options) runFunc {
	ref := o.fs.String("diff-base", "", "compare PATH with the merge base of REF and HEAD (e.g. origin/main), from a copy of its tree")
	pf := addPolicyFlags(o)
	return func(ctx context.Context, o *options, args []string) error {
		if err := render.OneOf("diff", o.Output.Output, "text", "json", "markdown"); err != nil {
			return err
		}
		base, head, err := diffSides(ctx, o, *ref, args)
		if err != nil {
			return err
		}
		c, err := runner.Diff(ctx, o.withConfig(base), o.withConfig(head), pf.given(o))
		if err != nil {
			return err
		}
		if err := render.Changes(o.env.stdout, o.Output.Output, c); err != nil {
			return err
		}
		if c.Rolling != nil && o.failsAt(c.Rolling.Severity) {
			return errFindings
		}
		// Nodes that lose their driver pod are rolled by nobody: no
		// rollout's verdict speaks of them, and they are the worst a
		// change can do.
		if c.Verdict == change.Removed && o.failsAt(policy.Error) {
			return errFindings
		}
		return nil
	}
}

// withConfig gives s the run's config for its paths, with its own values
// file in place of --operator-values.
func (o *options) withConfig(s runner.Side) runner.Side {
	s.Config = o.runnerConfig(s.Paths)
	s.Config.Operator.OperatorValues = s.Values
	if s.Values != "" {
		s.Config.FS = o.files(append(slices.Clone(s.Paths), s.Values))
	}
	return s
}

// diffSides are OLD and NEW as given, or the merge base of ref and the
// working tree's paths.
func diffSides(ctx context.Context, o *options, ref string, args []string) (runner.Side, runner.Side, error) {
	if ref == "" {
		if len(args) < 2 {
			return runner.Side{}, runner.Side{}, errors.New("diff: give OLD and NEW (the configuration before and after, files or folders) and the PATHs both read, or --diff-base REF [PATH...]")
		}
		shared := args[2:] // the fleet, read with each
		return givenSide(o, args[0], shared), givenSide(o, args[1], shared), nil
	}
	if len(args) == 0 {
		args = []string{"."}
	}
	values := o.Operator.OperatorValues
	b, err := runner.ExportBase(ctx, ref, args, values, int64(o.MaxInputSize))
	return b, runner.Side{Paths: args, Values: values, Name: strings.Join(args, ", ")}, err
}

// givenSide is OLD or NEW read with the shared paths: a values file
// stands for the chart's configuration; anything else is read as objects.
func givenSide(o *options, path string, shared []string) runner.Side {
	if isValues(o, path) {
		return runner.Side{Paths: shared, Values: path, Name: path, Named: true}
	}
	return runner.Side{Paths: append([]string{path}, shared...), Values: o.Operator.OperatorValues, Name: path, Named: true}
}

// isValues says whether path is a file of the chart's values rather than
// of Kubernetes objects: a YAML map with neither apiVersion nor kind.
func isValues(o *options, path string) bool {
	if info, err := os.Stat(path); err != nil || info.IsDir() {
		return false
	}
	data, err := o.files([]string{path}).ReadGiven(path)
	if err != nil {
		return false
	}
	var m map[string]any
	if yaml.Unmarshal(data, &m) != nil || m == nil {
		return false
	}
	_, api := m["apiVersion"]
	_, kind := m["kind"]
	return !api && !kind
}

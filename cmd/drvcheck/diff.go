package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/operator"
	"github.com/drvcheck/drvcheck/internal/plan"
	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/internal/runner"
	"github.com/drvcheck/drvcheck/policy"
)

// runDiff says what a change of the GPU Operator's configuration (its
// ClusterPolicy, NVIDIADrivers or chart values) does to the fleet:
// no-op, restart-only or a full rollout, per scope and per node, and for
// a rollout, the rollout itself as plan --all simulates it.
func runDiff(ctx context.Context, e *env, args []string) error {
	o := newFlags(e, "diff", "OLD NEW [PATH...]  |  --diff-base REF [PATH...]")
	ref := o.fs.String("diff-base", "", "compare PATH with the merge base of REF and HEAD (e.g. origin/main), from a copy of its tree")
	pf := addPolicyFlags(o)
	if err := o.parse(args); err != nil {
		return err
	}
	ctx, cancel := o.deadline(ctx)
	defer cancel()
	if err := render.TextOrJSON("diff", o.Output.Output); err != nil {
		return err
	}
	base, head, err := diffSides(ctx, o, *ref)
	if err != nil {
		return err
	}
	c, err := compareConfigs(ctx, e, o, pf, base, head)
	if err != nil {
		return err
	}
	if err := render.Changes(e.stdout, o.Output.Output, c); err != nil {
		return err
	}
	if c.Rolling != nil && o.failsAt(c.Rolling.Severity) {
		return errFindings
	}
	// Nodes that lose their driver pod are rolled by nobody: no rollout's
	// verdict speaks of them, and they are the worst a change can do.
	if c.Verdict == operator.Removed && o.failsAt(policy.Error) {
		return errFindings
	}
	return nil
}

// side is one configuration: its paths, its chart values file (when the
// configuration is one, or --operator-values names one), and how it is
// named.
type side struct {
	paths   []string
	values  string
	name    string
	cleanup func()
	// named: the user named this side (OLD or NEW), so it must hold a
	// configuration of the operator; a merge base may lack one (the
	// pull request adds it).
	named bool
}

// config is the run's config for the side: its paths, and its own values
// file in place of --operator-values.
func (s side) config(e *env, o *options) runner.Config {
	cfg := o.runnerConfig(e, s.paths)
	cfg.Operator.OperatorValues = s.values
	if s.values != "" {
		cfg.FS = o.files(append(slices.Clone(s.paths), s.values))
	}
	return cfg
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

func diffSides(ctx context.Context, o *options, ref string) (side, side, error) {
	args := o.fs.Args()
	if ref == "" {
		if len(args) < 2 {
			return side{}, side{}, errors.New("diff: give OLD and NEW (the configuration before and after, files or folders) and the PATHs both read, or --diff-base REF [PATH...]")
		}
		shared := args[2:] // the fleet, read with each
		return givenSide(o, args[0], shared), givenSide(o, args[1], shared), nil
	}
	if len(args) == 0 {
		args = []string{"."}
	}
	values := o.Operator.OperatorValues
	b, err := exportBase(ctx, ref, args, values, int64(o.MaxInputSize))
	return b, side{paths: args, values: values, name: strings.Join(args, ", ")}, err
}

// givenSide is OLD or NEW read with the shared paths: a values file
// stands for the chart's configuration; anything else is read as objects.
func givenSide(o *options, path string, shared []string) side {
	if isValues(o, path) {
		return side{paths: shared, values: path, name: path, named: true}
	}
	return side{paths: append([]string{path}, shared...), values: o.Operator.OperatorValues, name: path, named: true}
}

// compareConfigs reads both sides, compares their profiles, and rolls the
// change over the new side's fleet unless it is a no-op.
func compareConfigs(ctx context.Context, e *env, o *options, pf *policyFlags, base, head side) (*render.Change, error) {
	if base.cleanup != nil {
		defer base.cleanup()
	}
	if len(head.paths) == 0 {
		return nil, errors.New("diff: give the PATHs of the fleet (its nodes) besides the two values files")
	}
	baseProfile, baseFacts, err := readBase(ctx, e, o, base)
	if err != nil {
		return nil, err
	}
	cfg := head.config(e, o)
	res, m, err := runner.RunUpgrade(ctx, cfg, runner.Files(ctx, cfg))
	if err != nil {
		return nil, err
	}
	if res.Profile == nil {
		return nil, noConfiguration(head)
	}
	if baseProfile == nil {
		baseProfile = &operator.Profile{Version: res.Profile.Version}
	}
	c := &render.Change{Base: base.name, Head: head.name}
	c.Scopes = operator.Compare(baseProfile, res.Profile)
	c.Nodes = operator.NodeChanges(c.Scopes, baseFacts, res.Facts)
	c.Verdict = worstChange(c)
	if c.Verdict == operator.NoOp {
		return c, nil
	}
	byNode := map[string]operator.NodeChange{}
	for _, n := range c.Nodes {
		byNode[n.Node] = n
	}
	opt := plan.RollingOptions{Change: func(node string) (string, string) {
		n, ok := byNode[node]
		if !ok {
			return operator.NoOp, "not managed by the new configuration"
		}
		return n.Kind, n.Why
	}}
	opt.Driver = "the new configuration"
	if opt.Policy, err = operator.Policies(res.Profile, pf.given(o)); err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	after := plan.After{Facts: res.Facts, Catalog: res.Catalog, Findings: allFindings(res)}
	if c.Rolling, err = plan.Roll(m, after, opt); err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	return c, nil
}

// readBase reads the base side as the head side is read: the same opener,
// limits and warnings, and for a side the user named the same error when
// it holds no configuration of the operator. A base that is a link out of
// the repository, an alias bomb or a list was read as empty, and the
// change called a full rollout. A merge base without the paths is empty:
// everything is new.
func readBase(ctx context.Context, e *env, o *options, base side) (*operator.Profile, *nodefacts.Set, error) {
	if len(base.paths) == 0 && base.values == "" {
		return nil, nodefacts.All(nil), nil
	}
	cfg := base.config(e, o)
	inv := &inventory.Inventory{}
	if len(base.paths) > 0 { // no path is no object, never standard input
		var err error
		if inv, err = runner.Files(ctx, cfg)(false); err != nil {
			return nil, nil, fmt.Errorf("diff: %s: %w", base.name, err)
		}
		runner.WarnUnread(cfg, inv)
	}
	p, facts, err := runner.Profile(cfg, inv)
	if err != nil {
		return nil, nil, fmt.Errorf("diff: %s: %w", base.name, err)
	}
	if p == nil && base.named {
		return nil, nil, noConfiguration(base)
	}
	return p, facts, nil
}

func noConfiguration(s side) error {
	return fmt.Errorf("diff: %s holds no GPU Operator configuration (a ClusterPolicy, NVIDIADrivers, the chart's values or a GitOps object that installs it)", s.name)
}

// worstChange is the verdict: the most disruptive change of any node,
// and of any scope that owns a node of the new side (or of any scope
// when no node is known).
func worstChange(c *render.Change) string {
	rank := map[string]int{operator.NoOp: 0, operator.RestartOnly: 1, operator.FullRollout: 2, operator.Removed: 3}
	worst := operator.NoOp
	see := func(k string) {
		if rank[k] > rank[worst] {
			worst = k
		}
	}
	owners := map[string]bool{}
	for _, n := range c.Nodes {
		see(n.Kind)
		if n.Kind != operator.Removed {
			owners[n.Scope] = true
		}
	}
	for _, s := range c.Scopes {
		if owners[s.Owner] || len(c.Nodes) == 0 {
			see(s.Kind)
		}
	}
	return worst
}

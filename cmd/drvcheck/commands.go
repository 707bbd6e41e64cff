package main

import (
	"context"
	"fmt"
	"strings"
)

// A command is one row of drvcheck's table. The dispatcher (exec) does
// what every command shares: it binds the flag groups, lets setup add the
// command's own flags, parses them over the config file, bounds the run
// by --timeout, counts the arguments and reads --baseline; then it runs
// the command's run (or what setup returned).
type command struct {
	name, args, summary string
	groups              []group
	nargs               arity
	baseline            bool // reads --baseline before the run
	noConfig            bool // parses the command line alone: no config file
	// run is the command's work; setup, for a command with flags of its
	// own, registers them and returns it.
	run   runFunc
	setup func(o *options) runFunc
	// examples end the command's help; those over testdata/ run from the
	// repository's root in TestHelpExamplesRun, the others read a cluster
	// or a user's files.
	examples [2]string
}

// runFunc is a command's own work, once its flags are parsed.
type runFunc func(ctx context.Context, o *options, args []string) error

// A group binds one set of flags that several commands share.
type group func(o *options)

var (
	// ruleFlags: the sources of images, the operator, the rules, the
	// inputs' limits, the output and the config file: every command that
	// evaluates rules.
	ruleFlags group = func(o *options) {
		o.bind(&o.Registry, &o.Operator, &o.Rules, &o.Loading, &o.Output)
		o.addConfigFlag()
	}
	// rulesOnlyFlags: the rules and the output alone (verify, rules).
	rulesOnlyFlags group = func(o *options) {
		o.bind(&o.Rules, &o.Output)
		o.addConfigFlag()
	}
	loadingFlags group = func(o *options) { o.bind(&o.Loading) }
	inputFlags   group = func(o *options) { o.bind(&o.Inputs) }
	reportFlags  group = (*options).addReportFlag
	clusterFlags group = (*options).addClusterFlags
)

// arity is how many arguments a command takes.
type arity struct {
	min, max int    // max < 0: no bound
	why      string // what the error says when the count is wrong
}

var anyArgs = arity{max: -1}

func (a arity) check(name string, args []string) error {
	switch {
	case len(args) < a.min:
		return fmt.Errorf("%s: %s", name, a.why)
	case a.max >= 0 && len(args) > a.max:
		return fmt.Errorf("%s: %s (got %s)", name, a.why, strings.Join(args[a.max:], " "))
	}
	return nil
}

var commands []command

func init() {
	commands = []command{
		{name: "check", args: "[PATH...]", summary: "evaluate every rule over manifests in files and folders",
			groups: []group{ruleFlags, reportFlags, inputFlags, clusterFlags}, baseline: true,
			nargs: arity{min: 1, max: -1, why: "no PATH given (use - for standard input)"}, setup: checkCmd,
			examples: [2]string{"drvcheck check testdata/lab --matrix testdata/lab/support-matrix.csv", "drvcheck check k8s/ --nodes .drvcheck/nodes.yaml --diff-base origin/main -o sarif"}},
		{name: "scan", summary: "evaluate every rule over the live cluster (read-only)",
			groups: []group{ruleFlags, reportFlags, clusterFlags}, baseline: true,
			nargs: arity{why: "reads the live cluster and takes no PATH; use check for manifests"}, setup: scanCmd,
			examples: [2]string{"drvcheck scan --matrix support-matrix.csv", "drvcheck scan --registry nvcr.io/nvidia/driver -o json --report sarif=drvcheck.sarif"}},
		{name: "tag", args: "NODE [PATH...]", summary: "print the precompiled driver image tag NODE needs",
			groups: []group{ruleFlags, clusterFlags}, nargs: arity{min: 1, max: -1, why: "no NODE given"}, setup: tagCmd,
			examples: [2]string{"drvcheck tag lab-node-1 testdata/lab", "drvcheck tag lab-node-0 testdata/lab --check --matrix testdata/lab/support-matrix.csv"}},
		{name: "audit", args: "[PATH...]", summary: "list GPU nodes whose driver image is missing (needs --matrix or --registry)",
			groups: []group{ruleFlags, clusterFlags}, nargs: anyArgs, setup: auditCmd,
			examples: [2]string{"drvcheck audit testdata/lab --matrix testdata/lab/support-matrix.csv", "drvcheck audit --registry nvcr.io/nvidia/driver --context prod"}},
		{name: "plan", args: "NODE --driver V [PATH...]", summary: "the driver upgrade of NODE as ordered steps; --all simulates the fleet",
			groups: []group{ruleFlags, clusterFlags}, nargs: anyArgs, setup: planCmd,
			examples: [2]string{"drvcheck plan lab-node-1 --driver 550.90.07 testdata/lab --matrix testdata/lab/support-matrix.csv", "drvcheck plan --all --driver 570.86.15 testdata/operator/rollout --matrix testdata/lab/support-matrix.csv"}},
		{name: "diff", args: "OLD NEW [PATH...] | --diff-base REF [PATH...]", summary: "what an operator configuration change does: no-op, restart-only or full rollout, and its rollout",
			groups: []group{ruleFlags}, nargs: anyArgs, setup: diffCmd,
			examples: [2]string{"drvcheck diff testdata/operator/change/base.yaml testdata/operator/change/labels.yaml testdata/operator/change/nodes.yaml --matrix testdata/operator/change/images.csv", "drvcheck diff --diff-base origin/main clusters/prod"}},
		{name: "status", args: "[PATH...]", summary: "one row per GPU node: driver, tag, image, upgrade state, cordon, stall",
			groups: []group{ruleFlags, clusterFlags}, nargs: anyArgs, run: runStatus,
			examples: [2]string{"drvcheck status testdata/lab --matrix testdata/lab/support-matrix.csv", "drvcheck status --context prod -o json"}},
		{name: "verify", args: "[DIR...]", summary: "run the Rego unit tests (*_test.rego) of the built-in and your policies",
			groups: []group{rulesOnlyFlags}, nargs: anyArgs, run: runVerify,
			examples: [2]string{"drvcheck verify", "drvcheck verify testdata/policies/acme"}},
		{name: "rules", summary: "list every rule, built-in and --policy, from its meta (-o markdown is docs/rules.md)",
			groups: []group{rulesOnlyFlags}, nargs: arity{why: "takes no argument"}, run: runRules,
			examples: [2]string{"drvcheck rules", "drvcheck rules --policy testdata/policies/acme -o markdown"}},
		{name: "input", args: "[PATH...]", summary: "print the input document the rules read, as JSON (live cluster without PATH)",
			groups: []group{ruleFlags, clusterFlags}, nargs: anyArgs, run: runInput,
			examples: [2]string{"drvcheck input testdata/lab", "drvcheck input testdata/lab --policy testdata/policies/acme"}},
		{name: "snapshot", args: "nodes [PATH...]", summary: "write the nodes (labels, taints, allocatable, conditions) for check --nodes",
			groups: []group{loadingFlags, clusterFlags}, nargs: arity{min: 1, max: -1, why: snapshotWhy}, setup: snapshotCmd,
			examples: [2]string{"drvcheck snapshot nodes --file .drvcheck/nodes.yaml", "drvcheck snapshot nodes testdata/lab --gpu-only"}},
		{name: "report", args: "merge RESULT.json|configmap=NS/NAME...", summary: "merge the -o json results of several clusters (files, or each cluster's report ConfigMap) into one fleet result, judged for skew (DRV050)",
			groups: []group{rulesOnlyFlags, reportFlags, clusterFlags}, nargs: arity{min: 2, max: -1, why: reportWhy}, setup: reportCmd,
			examples: [2]string{"drvcheck report merge testdata/clusters/eu-1.json testdata/clusters/us-1.json", "drvcheck report merge results/*.json -o json > fleet.json"}},
		{name: "version", summary: "print the version, commit and OPA version (also --version)",
			noConfig: true, nargs: arity{why: "takes no argument"}, run: runVersion,
			examples: [2]string{"drvcheck version", "drvcheck --version"}},
		{name: "completion", args: "bash|zsh|fish", summary: "print the shell completion script",
			noConfig: true, nargs: arity{min: 1, max: 1, why: "want one shell: bash, zsh or fish"}, run: runCompletion,
			examples: [2]string{"source <(drvcheck completion bash)", "drvcheck completion fish | source"}},
	}
}

// exec runs c with the command line args (without the command's name).
func (c command) exec(ctx context.Context, e *env, args []string) error {
	o := newOptions(e, c)
	for _, g := range c.groups {
		g(o)
	}
	run := c.run
	if c.setup != nil {
		run = c.setup(o)
	}
	parse := o.parse
	if c.noConfig {
		parse = o.parseFlags
	}
	if err := parse(args); err != nil {
		return err
	}
	ctx, cancel := o.deadline(ctx)
	defer cancel()
	if err := c.nargs.check(c.name, o.fs.Args()); err != nil {
		return err
	}
	if c.baseline {
		if err := o.loadBaseline(o.fs.Args()); err != nil {
			return err
		}
	}
	return run(ctx, o, o.fs.Args())
}

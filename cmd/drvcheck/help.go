package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/spf13/pflag"

	"github.com/drvcheck/drvcheck/internal/config"
)

// flagGroups name the flags of each options struct for help, in the order
// help prints them; a command's own flags come first, as "flags".
func flagGroups() []struct {
	title string
	names []string
} {
	limits := []string{"max-file-size", "max-input-size", "render-timeout", "timeout", "registry-timeout", "request-timeout"}
	without := func(names []string) []string {
		return slices.DeleteFunc(names, func(n string) bool { return slices.Contains(limits, n) })
	}
	return []struct {
		title string
		names []string
	}{
		{"inputs", append(without(config.Names(&config.Loading{})), config.Names(&config.Inputs{})...)},
		{"sources of driver images", without(config.Names(&config.Registry{}))},
		{"operator", config.Names(&config.Operator{})},
		{"rules", without(config.Names(&config.Rules{}))},
		{"cluster", without(config.Names(&config.Cluster{}))},
		{"output", append(config.Names(&config.Output{}), config.Names(&config.Reports{})...)},
		{"limits", limits},
		{"config", []string{"config", "trust-config", "profile"}},
	}
}

// usage prints a command's flags in groups, then two examples.
func (o *options) usage(w io.Writer, name, args string) {
	fmt.Fprintf(w, "Usage: drvcheck %s %s\n", name, args)
	grouped := map[string]bool{}
	var sections []struct {
		title string
		set   *pflag.FlagSet
	}
	add := func(title string, names []string) {
		set := pflag.NewFlagSet(title, pflag.ContinueOnError)
		for _, n := range names {
			if f := o.fs.Lookup(n); f != nil && !grouped[n] {
				set.AddFlag(f)
				grouped[n] = true
			}
		}
		if set.HasFlags() {
			sections = append(sections, struct {
				title string
				set   *pflag.FlagSet
			}{title, set})
		}
	}
	for _, g := range flagGroups() {
		add(g.title, g.names)
	}
	var own []string
	o.fs.VisitAll(func(f *pflag.Flag) {
		if !grouped[f.Name] && f.Name != "help" {
			own = append(own, f.Name)
		}
	})
	set := pflag.NewFlagSet("flags", pflag.ContinueOnError)
	for _, n := range own {
		set.AddFlag(o.fs.Lookup(n))
	}
	if set.HasFlags() {
		fmt.Fprintf(w, "\n%s flags:\n%s", name, set.FlagUsages())
	}
	for _, s := range sections {
		s.set.SortFlags = false
		fmt.Fprintf(w, "\n%s:\n%s", s.title, s.set.FlagUsages())
	}
	if ex := examples[name]; len(ex) > 0 {
		fmt.Fprintln(w, "\nExamples:")
		for _, e := range ex {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
}

// examples are two command lines per command; those over testdata/ run
// from the repository's root in TestHelpExamplesRun, the others read a
// cluster or a user's files.
var examples = map[string][]string{
	"check":      {"drvcheck check testdata/lab --matrix testdata/lab/support-matrix.csv", "drvcheck check k8s/ --nodes .drvcheck/nodes.yaml --diff-base origin/main -o sarif"},
	"scan":       {"drvcheck scan --matrix support-matrix.csv", "drvcheck scan --registry nvcr.io/nvidia/driver -o json --report sarif=drvcheck.sarif"},
	"tag":        {"drvcheck tag lab-node-1 testdata/lab", "drvcheck tag lab-node-0 testdata/lab --check --matrix testdata/lab/support-matrix.csv"},
	"audit":      {"drvcheck audit testdata/lab --matrix testdata/lab/support-matrix.csv", "drvcheck audit --registry nvcr.io/nvidia/driver --context prod"},
	"diff":       {"drvcheck diff testdata/operator/change/base.yaml testdata/operator/change/labels.yaml testdata/operator/change/nodes.yaml --matrix testdata/operator/change/images.csv", "drvcheck diff --diff-base origin/main clusters/prod"},
	"plan":       {"drvcheck plan lab-node-1 --driver 550.90.07 testdata/lab --matrix testdata/lab/support-matrix.csv", "drvcheck plan --all --driver 570.86.15 testdata/operator/rollout --matrix testdata/lab/support-matrix.csv"},
	"status":     {"drvcheck status testdata/lab --matrix testdata/lab/support-matrix.csv", "drvcheck status --context prod -o json"},
	"verify":     {"drvcheck verify", "drvcheck verify testdata/policies/acme"},
	"rules":      {"drvcheck rules", "drvcheck rules --policy testdata/policies/acme -o markdown"},
	"input":      {"drvcheck input testdata/lab", "drvcheck input testdata/lab --policy testdata/policies/acme"},
	"snapshot":   {"drvcheck snapshot nodes --file .drvcheck/nodes.yaml", "drvcheck snapshot nodes testdata/lab --gpu-only"},
	"version":    {"drvcheck version", "drvcheck --version"},
	"completion": {"source <(drvcheck completion bash)", "drvcheck completion fish | source"},
}

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
func (o *options) usage(w io.Writer, c command) {
	name := c.name
	fmt.Fprintf(w, "Usage: drvcheck %s %s\n", name, c.args)
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
	fmt.Fprintln(w, "\nExamples:")
	for _, e := range c.examples {
		fmt.Fprintf(w, "  %s\n", e)
	}
}

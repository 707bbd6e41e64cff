package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/drvcheck/drvcheck/internal/config"
	"github.com/drvcheck/drvcheck/internal/cuda"
	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/internal/runner"
	"github.com/drvcheck/drvcheck/policy"
)

// options are the flags every command shares (README, "Common flags").
type options struct {
	matrix, registry, policies, data, ignore []string
	reports                                  []string // --report FORMAT=FILE
	output, failOn, configPath               string
	reg                                      registryFlags
	cudaCompat                               string

	fs   *pflag.FlagSet
	conf *config.File
}

// newFlags registers the shared flags; a command adds its own to o.fs.
func newFlags(name, args string, stderr io.Writer) *options {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	o := &options{fs: fs}
	fs.StringArrayVar(&o.matrix, "matrix", nil, "support-matrix CSV (header driver_branch,kernel,os_tag); repeatable")
	o.addRegistryFlags()
	fs.StringArrayVar(&o.policies, "policy", nil, "folder or .rego file of extra rules; repeatable")
	fs.StringArrayVar(&o.data, "data", nil, "JSON or YAML data for the rules; repeatable")
	fs.StringArrayVar(&o.ignore, "ignore", nil, "glob of paths to skip when walking folders; repeatable")
	fs.StringVarP(&o.output, "output", "o", "text", "output format: "+strings.Join(render.Formats(), ", "))
	fs.StringVar(&o.failOn, "fail-on", policy.Error, "lowest severity that exits 1: error, warning or none")
	fs.StringVar(&o.cudaCompat, "cuda-compat", string(cuda.Minor), "driver floor of a CUDA image: minor (the major's minor-version compatibility floor) or strict (the toolkit's own minimum driver)")
	fs.StringVar(&o.configPath, "config", "", "config file (default .drvcheck.yaml in the working folder, when present)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: drvcheck %s %s\n\nFlags:\n%s", name, args, fs.FlagUsages())
	}
	return o
}

// parse parses args and merges the config file: a flag given on the command
// line wins over the same key in the file.
func (o *options) parse(args []string) error {
	if err := o.parseFlags(args); err != nil {
		return err
	}
	conf, err := config.Load(o.configPath)
	if err != nil {
		return err
	}
	o.conf = conf
	o.fromConfig("matrix", &o.matrix, conf.Matrix)
	o.fromConfig("registry", &o.registry, conf.Registry)
	o.fromConfig("registry-ca", &o.reg.ca, conf.RegistryCA)
	o.fromConfig("insecure-registry", &o.reg.insecure, conf.InsecureRegistry)
	o.fromConfig("policy", &o.policies, conf.Policy)
	o.fromConfig("data", &o.data, conf.Data)
	o.fromConfig("ignore", &o.ignore, conf.Ignore)
	if conf.FailOn != "" && !o.fs.Changed("fail-on") {
		o.failOn = conf.FailOn
	}
	if conf.Output != "" && !o.fs.Changed("output") {
		o.output = conf.Output
	}
	if conf.CUDACompat != "" && !o.fs.Changed("cuda-compat") {
		o.cudaCompat = conf.CUDACompat
	}
	return o.validate()
}

// parseFlags parses the command line alone, without the config file.
func (o *options) parseFlags(args []string) error {
	if err := o.fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return errHelp // pflag has printed the usage
		}
		return fmt.Errorf("%s: %w", o.fs.Name(), err)
	}
	return nil
}

func (o *options) fromConfig(flag string, dst *[]string, vals []string) {
	if len(vals) > 0 && (o.fs.Lookup(flag) == nil || !o.fs.Changed(flag)) {
		*dst = vals
	}
}

func (o *options) validate() error {
	if _, err := cuda.ParseCompat(o.cudaCompat); err != nil {
		return err
	}
	switch o.failOn {
	case policy.Error, policy.Warning, "none":
	default:
		return fmt.Errorf("--fail-on %q: want error, warning or none", o.failOn)
	}
	if !slices.Contains(render.Formats(), o.output) {
		return fmt.Errorf("--output %q: want one of %s", o.output, strings.Join(render.Formats(), ", "))
	}
	_, err := o.reportFiles()
	return err
}

// runnerConfig turns the options and the paths into what a run reads.
func (o *options) runnerConfig(e *env, paths []string) runner.Config {
	return runner.Config{
		Paths:    paths,
		Ignore:   o.ignore,
		Stdin:    e.stdin,
		Matrix:   o.matrix,
		Policies: o.policies,
		Data:     o.data,

		Registry:        o.registry,
		RegistryOptions: o.registryOptions(e.stderr),
		CUDACompat:      o.cudaCompat,
		Exceptions:      o.conf.Exceptions,
		ConfigFile:      o.conf.Path,
	}
}

// sourcesConfigured reports whether any source of existing tags is given.
func (o *options) sourcesConfigured() bool {
	return len(o.matrix) > 0 || len(o.registry) > 0
}

// fails reports whether findings reach --fail-on.
func (o *options) fails(fs []policy.Finding) bool {
	if o.failOn == "none" {
		return false
	}
	for _, f := range fs {
		if policy.Rank(f.Severity) >= policy.Rank(o.failOn) {
			return true
		}
	}
	return false
}

func colorFor(f *os.File) bool { return render.ColorFor(f) }

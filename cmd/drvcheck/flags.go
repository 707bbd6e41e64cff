package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/drvcheck/drvcheck/internal/baseline"
	"github.com/drvcheck/drvcheck/internal/config"
	"github.com/drvcheck/drvcheck/internal/cuda"
	"github.com/drvcheck/drvcheck/internal/fleet"
	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/internal/repofs"
	"github.com/drvcheck/drvcheck/internal/runner"
	"github.com/drvcheck/drvcheck/policy"
)

// options are a command's options (internal/config, one struct per
// concern), from its flags over the config file over the defaults.
type options struct {
	config.Run
	config.Loading
	config.Registry
	config.Rules
	config.Operator
	config.Output
	config.Reports
	config.Inputs
	cluster     *config.Cluster // nil unless the command reads clusters
	configPath  string
	trustConfig bool

	start time.Time // when the command began, for the metrics
	until time.Time // --timeout's end, once deadline has set it (zero: none)
	fs    *pflag.FlagSet
	bound []any // the structs whose flags the command has
	// refusals are a command's own checks of its flags (flags that
	// exclude each other), run with the shared ones once the config file
	// is merged: before --baseline is read or anything else is done.
	refusals []func() error
	conf     *config.File
	stderr   io.Writer

	profile string // --profile
	env     *env
	// base is what findings are compared with: --baseline's report, or
	// check --diff-base's run of the merge base.
	base *baseline.Baseline
}

// newOptions has no flag but --help, --profile and the run's bounds; the
// command's groups and its setup bind the rest.
func newOptions(e *env, c command) *options {
	fs := pflag.NewFlagSet(c.name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	stderr := e.stderr
	o := &options{fs: fs, stderr: stderr, start: time.Now(), env: e}
	fs.StringVar(&o.profile, "profile", "", "write pprof profiles of this run: cpu=FILE, mem=FILE or both (cpu=cpu.pprof,mem=mem.pprof)")
	if e.flags != nil {
		*e.flags = fs
	}
	o.Loading, o.Registry, o.Rules, _, o.Output = config.Defaults()
	o.Run = config.Run{Deadline: config.Duration(config.DefaultDeadline)}
	fs.Usage = func() { o.usage(stderr, c) }
	o.bind(&o.Run) // every command is bounded
	return o
}

func (o *options) addConfigFlag() {
	o.fs.StringVar(&o.configPath, "config", "", "config file (default .drvcheck.yaml in the working folder, when present)")
	o.fs.BoolVar(&o.trustConfig, "trust-config", false, "let the config file set what only the command line may (report, pushgateway, allow-net, credentials, looser bounds, paths outside its repository); never on a pull request's own config")
}

func (o *options) bind(structs ...any) {
	config.Bind(o.fs, structs...)
	o.bound = append(o.bound, structs...)
}

// addReportFlag registers --report, for the commands that write reports.
func (o *options) addReportFlag() {
	o.bind(&o.Reports)
	o.refuse(func() error {
		if o.ClusterName != "" {
			if err := fleet.CheckName(o.ClusterName); err != nil {
				return fmt.Errorf("--cluster-name: %w", err)
			}
		}
		_, err := fleet.ParseLabels(o.ClusterLabels)
		return err
	})
}

// addClusterFlags registers --kubeconfig, --context and --request-timeout,
// named and loaded as kubectl does.
func (o *options) addClusterFlags() {
	_, _, _, c, _ := config.Defaults()
	o.cluster = &c
	o.bind(o.cluster)
	o.refuse(o.oneContext)
}

// parse parses args and merges the config file: a flag given on the command
// line wins over the same key in the file.
func (o *options) parse(args []string) error {
	if err := o.parseFlags(args); err != nil {
		return err
	}
	conf, err := config.Load(o.configPath, o.trustConfig)
	if err != nil {
		return err
	}
	o.conf = conf
	if err := conf.Apply(o.fs, o.bound...); err != nil {
		return err
	}
	return o.validate()
}

// parseFlags parses the command line alone, without the config file, and
// starts --profile.
func (o *options) parseFlags(args []string) error {
	if err := o.fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return errHelp // pflag has printed the usage
		}
		return fmt.Errorf("%s: %w", o.fs.Name(), err)
	}
	if o.profile == "" || o.env.profile != nil {
		return nil
	}
	p, err := parseProfile(o.profile)
	if err == nil {
		err = p.start()
	}
	if err == nil {
		o.env.profile = p
	}
	return err
}

func (o *options) validate() error {
	if _, err := cuda.ParseCompat(o.CUDACompat); err != nil {
		return err
	}
	switch o.FailOn {
	case policy.Error, policy.Warning, "none":
	default:
		return fmt.Errorf("--fail-on %q: want error, warning or none", o.FailOn)
	}
	if !slices.Contains(render.Formats(), o.Output.Output) {
		return fmt.Errorf("--output %q: want one of %s", o.Output.Output, strings.Join(render.Formats(), ", "))
	}
	if err := config.Check(o.bound...); err != nil {
		return err
	}
	if _, err := o.sinks(); err != nil {
		return err
	}
	for _, refuse := range o.refusals {
		if err := refuse(); err != nil {
			return err
		}
	}
	return nil
}

// refuse adds a check of the command's own flags to validate.
func (o *options) refuse(check func() error) { o.refusals = append(o.refusals, check) }

// runnerConfig turns the options and the paths into what a run reads.
func (o *options) runnerConfig(paths []string) runner.Config {
	return runner.Config{
		Paths:      paths,
		Stdin:      o.env.stdin,
		Run:        o.Run,
		Loading:    o.Loading,
		Registry:   o.Registry,
		Rules:      o.Rules,
		Operator:   o.Operator,
		Warn:       o.warn(),
		Exceptions: o.conf.Exceptions,
		ConfigFile: o.conf.Path,
		FS:         o.files(paths),
	}
}

// files is the run's opener (internal/repofs): files are read inside the
// repositories of the paths and of the config file, within the limits.
func (o *options) files(paths []string) *repofs.FS {
	roots := repofs.RootsOf(append(slices.Clone(paths), o.conf.Path)...)
	lim := repofs.Limits{File: int64(o.MaxFileSize), Total: int64(o.MaxInputSize), Until: o.until}
	fsys, err := repofs.New(roots, lim)
	if err != nil { // a working folder gone: every read then fails naming its path
		fsys, _ = repofs.New(nil, lim)
	}
	return fsys
}

// warn prints notes that do not change the answer (a cache that could not
// be written, say) on stderr, one line each; registries are listed in
// parallel.
func (o *options) warn() func(string) {
	var mu sync.Mutex
	return func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(o.stderr, "drvcheck: warning: %s\n", outLine(msg))
	}
}

// fails reports whether findings reach --fail-on.
func (o *options) fails(fs []policy.Finding) bool {
	for _, f := range fs {
		if o.failsAt(f.Severity) {
			return true
		}
	}
	return false
}

// exitFor is errFindings when findings reach --fail-on.
func (o *options) exitFor(fs []policy.Finding) error {
	if o.fails(fs) {
		return errFindings
	}
	return nil
}

// failsAt reports whether severity reaches --fail-on.
func (o *options) failsAt(severity string) bool {
	return o.FailOn != "none" && severity != "" && policy.Rank(severity) >= policy.Rank(o.FailOn)
}

func colorFor(f *os.File) bool { return render.ColorFor(f) }

// deadline bounds the whole run by --timeout: reading, rendering (each
// render also by --render-timeout), evaluating the rules and writing the
// reports. The opener learns the end too (o.files), for what no context
// reaches: a pipe the user named that is never closed.
func (o *options) deadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if d := time.Duration(o.Deadline); d > 0 {
		o.until = time.Now().Add(d)
		return context.WithDeadlineCause(ctx, o.until, fmt.Errorf("the run did not finish within %s (--timeout)", d))
	}
	return context.WithCancel(ctx)
}

package runner

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/config"
	"github.com/drvcheck/drvcheck/internal/exceptions"
	"github.com/drvcheck/drvcheck/internal/imageref"
	"github.com/drvcheck/drvcheck/internal/input"
	"github.com/drvcheck/drvcheck/internal/input/workload/gpufit"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/memlimit"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/operator"
	"github.com/drvcheck/drvcheck/internal/placement"
	"github.com/drvcheck/drvcheck/internal/registry"
	"github.com/drvcheck/drvcheck/internal/repofs"
	"github.com/drvcheck/drvcheck/policy"
)

// Config is everything a run reads: the paths, and the options of
// internal/config as the command line and the config file set them.
type Config struct {
	Paths []string
	Stdin io.Reader
	config.Run
	config.Loading
	config.Registry
	config.Rules
	config.Operator

	// RegistryOptions tune the registry client beyond the options (a
	// keychain or page size for tests); the options' fields win.
	RegistryOptions registry.Options
	// Warn receives notes that do not change the answer; nil drops them.
	Warn func(string)
	// Exceptions come from the config file named by ConfigFile; Today
	// decides which have expired (zero: now).
	Exceptions []config.Exception
	ConfigFile string
	Today      time.Time
	// FS opens every file of the run (internal/repofs): manifests, charts,
	// values, matrices, policies. Nil: one per reader, made of the paths'
	// repositories.
	FS *repofs.FS
	// Upgrade, when set, relabels nodes as if they ran a new driver before
	// the rules run, so that findings speak of the image each will need
	// (plan).
	Upgrade *Upgrade
	// RolloutOnly evaluates, of the built-in rules, those whose findings
	// the rollout reads (policy.Rule.Rollout), and every rule of the
	// user's (--policy), which may say an image is missing: plan --all
	// prints the rollout, not findings, and on gitops at 15,000 nodes the
	// rules it does not read took an eighth of its time (DRV010 alone
	// words 30,000 workloads pinned to the drivers the fleet leaves).
	RolloutOnly bool
}

// Upgrade names a driver version and the nodes to relabel with it.
type Upgrade struct {
	Driver string
	Nodes  []string // empty: every GPU node
}

// PolicyOptions are the rules' options cfg names.
func (cfg Config) PolicyOptions() policy.Options {
	return policy.Options{Policies: cfg.Policy, Data: cfg.Data, AllowNet: cfg.AllowNet, Timeout: time.Duration(cfg.Deadline), FS: cfg.FS}
}

// Sources are the sources of existing tags cfg names.
func (cfg Config) Sources() catalog.Sources {
	r, opt := cfg.Registry, cfg.RegistryOptions
	opt.CAFiles, opt.Insecure, opt.Offline, opt.FS = r.CA, r.Insecure, r.Offline, cfg.FS
	opt.Timeout, opt.CacheDir, opt.CacheTTL = time.Duration(r.Timeout), r.CacheDir, time.Duration(r.CacheTTL)
	opt.Warn = cfg.Warn
	return catalog.Sources{Matrix: r.Matrix, Registry: r.Registry, RegistryOptions: opt, FS: cfg.FS}
}

// Result is the outcome of a run.
type Result struct {
	Findings  []policy.Finding
	Rules     []policy.Rule
	Summary   policy.Summary
	Inventory *inventory.Inventory
	Catalog   *catalog.Catalog
	Facts     *nodefacts.Set
	// Profile is the GPU Operator's configuration the run read; nil
	// without one.
	Profile *operator.Profile

	// Skipped are the rules that could not judge, by what they need.
	Skipped []Skip
	// Suppressed are findings held back by an exception; Expired are
	// exceptions past their date (see except).
	Suppressed []exceptions.Suppressed
	Expired    []exceptions.Expired
	// Gangs are the gangs that fit the fleet the rules judged, for plan
	// --all to judge again with each round's nodes out.
	Gangs []*gpufit.Room
}

// Run is every run, whatever its objects come from: compile the rules,
// read the objects, list the tags that exist, evaluate, then hold back
// what exceptions cover.
func Run(ctx context.Context, cfg Config, read Reader) (*Result, error) {
	r, err := open(ctx, cfg, read)
	if err != nil {
		return nil, overrun(ctx, err)
	}
	res, err := evaluate(ctx, r, cfg.CUDACompat)
	if err != nil {
		return nil, overrun(ctx, err)
	}
	return res, except(res, cfg)
}

// overrun is err, or when the run's context has ended, why it ended (the
// command's --timeout says it), unless err says so already (a render names
// its chart): a library's "context deadline exceeded" names no limit.
func overrun(ctx context.Context, err error) error {
	if ctx.Err() == nil || strings.Contains(err.Error(), "--timeout") {
		return err
	}
	return context.Cause(ctx)
}

// neededTags are the tags the GPU nodes need.
func neededTags(facts *nodefacts.Set) []imageref.Ref {
	var out []imageref.Ref
	for _, f := range facts.List() {
		if f.GPU && f.Tag != "" {
			out = append(out, imageref.Ref{Tag: f.Tag})
		}
		for _, a := range f.Image.Aux {
			if f.GPU && f.Image.Managed && a.Tag != "" {
				out = append(out, imageref.WithTag(a.Repository, a.Tag))
			}
		}
	}
	return out
}

// Confirm makes sure that no tag of needed is missing on the word of the
// cache: a cached listing says what existed then, and a user who just
// pushed the image must not be told it is still missing. When a needed tag
// is in no source and some listing came from the cache, the registries are
// listed again; offline they cannot be, and the answer says it may be
// stale.
func Confirm(ctx context.Context, cfg Config, cat *catalog.Catalog, needed []imageref.Ref) (*catalog.Catalog, error) {
	doubtful := cat.Doubtful(needed)
	if len(doubtful) == 0 {
		return cat, nil
	}
	if cfg.Offline {
		for _, c := range doubtful {
			if cfg.Warn != nil {
				cfg.Warn(fmt.Sprintf("--offline: the tags of %s are those cached on %s; a MISSING answer may be stale", c.Source, c.Fetched.UTC().Format(time.RFC3339)))
			}
		}
		return cat, nil
	}
	src := cfg.Sources()
	src.RegistryOptions.CacheTTL = 0 // ask the registries; the cache is written anew
	return catalog.Read(ctx, src)
}

// RunUpgrade is Run over the fleet relabelled as cfg.Upgrade says (plan),
// and returns with it the drain model of the fleet as it is: the objects
// are read once, the drain is planned on today's nodes and the image on
// tomorrow's.
func RunUpgrade(ctx context.Context, cfg Config, read Reader) (*Result, *placement.Model, error) {
	type built struct {
		m   *placement.Model
		err error
	}
	model := make(chan built, 1)
	keep := func(keepRaw bool) (*inventory.Inventory, error) {
		inv, err := read(keepRaw)
		if err == nil {
			// The model of the fleet as it is is built while the rules
			// judge the fleet after the upgrade.
			go func() {
				m, err := placement.New(inv)
				model <- built{m, err}
			}()
		}
		return inv, err
	}
	res, err := Run(ctx, cfg, keep)
	if err != nil {
		return nil, nil, err
	}
	select {
	case b := <-model:
		return res, b.m, b.err
	case <-ctx.Done():
		return nil, nil, context.Cause(ctx) // as untilDone: the model does not watch ctx
	}
}

// Check runs every rule over the objects of cfg.
func Check(ctx context.Context, cfg Config) (*Result, error) { return Run(ctx, cfg, Files(ctx, cfg)) }

// Document builds the input document a run would evaluate, for users who
// write rules against it (drvcheck input).
func Document(ctx context.Context, cfg Config, read Reader) (map[string]any, error) {
	r, err := open(ctx, cfg, read)
	if err != nil {
		return nil, err
	}
	opt, err := options(ctx, r, cfg.CUDACompat)
	if err != nil {
		return nil, err
	}
	if opt.Drain, err = placement.New(r.inv); err != nil {
		return nil, err
	}
	return input.Build(r.inv, r.facts, r.cat, opt), nil
}

// opened is what every run reads before it evaluates.
type opened struct {
	engine  *policy.Engine
	inv     *inventory.Inventory
	facts   *nodefacts.Set
	cat     *catalog.Catalog
	profile *operator.Profile // nil: the lab's model
	warn    func(string)      // cfg.Warn; nil drops the notes
}

// open compiles the rules, reads the objects and their nodes' facts, and
// the tags that exist, confirmed against the registries where the cache
// alone would say one is missing.
func open(ctx context.Context, cfg Config, read Reader) (*opened, error) {
	engine, err := policy.New(ctx, cfg.PolicyOptions())
	if err != nil {
		return nil, err
	}
	if cfg.RolloutOnly && !engine.Custom() {
		engine = engine.Only(func(r policy.Rule) bool { return r.Rollout })
	}
	cat, err := catalog.Matrices(cfg.Sources())
	if err != nil {
		return nil, err
	}
	inv, err := read(engine.Custom())
	if err != nil {
		return nil, err
	}
	memlimit.Nodes(len(inv.Nodes)) // before the input and the rules, the run's last allocations
	profile, err := operator.Build(cfg.operatorFlags(), operatorObjects(inv))
	if err != nil {
		return nil, err
	}
	if cfg.Upgrade != nil {
		inv = cfg.Upgrade.apply(inv)
		profile = profile.WithVersion(cfg.Upgrade.Driver)
	}
	if profile != nil && cfg.Warn != nil {
		for _, n := range profile.Notes {
			cfg.Warn(n)
		}
		for _, d := range profile.Drivers {
			if d.Unresolved != "" {
				cfg.Warn(d.Unresolved + "; until then no tag is checked for its nodes")
			}
		}
	}
	WarnUnread(cfg, inv)
	facts := nodefacts.With(inv.Nodes, imager(profile))
	cfg = cfg.withProfile(profile, facts.List())
	if err := catalog.AddRegistries(ctx, cat, cfg.Sources()); err != nil {
		return nil, err
	}
	if cat, err = Confirm(ctx, cfg, cat, neededTags(facts)); err != nil {
		return nil, err
	}
	if err := addPlatforms(ctx, cfg.Sources(), cat, facts, inv.Nodes); err != nil {
		return nil, err
	}
	return &opened{engine: engine, inv: inv, facts: facts, cat: cat, profile: profile, warn: cfg.Warn}, nil
}

// apply returns a copy of inv whose GPU nodes named by u are relabelled as
// if they ran u.Driver; inv itself is left as read.
func (u *Upgrade) apply(inv *inventory.Inventory) *inventory.Inventory {
	nodes := slices.Clone(inv.Nodes)
	for i, n := range nodes {
		if nodefacts.GPUBy(n.Labels) != "" && (len(u.Nodes) == 0 || slices.Contains(u.Nodes, n.Name)) {
			nodes[i] = nodefacts.Upgraded(n, u.Driver)
		}
	}
	return inv.WithNodes(nodes)
}

// Evaluate reads the node facts once, builds the input document and
// evaluates engine over it. compat is --cuda-compat ("" for the default).
func Evaluate(ctx context.Context, engine *policy.Engine, inv *inventory.Inventory, cat *catalog.Catalog, compat string) (*Result, error) {
	return evaluate(ctx, &opened{engine: engine, inv: inv, facts: nodefacts.All(inv.Nodes), cat: cat}, compat)
}

func evaluate(ctx context.Context, r *opened, compat string) (*Result, error) {
	engine, inv, facts, cat := r.engine, r.inv, r.facts, r.cat
	opt, err := options(ctx, r, compat)
	if err != nil {
		return nil, err
	}
	var gangs []*gpufit.Room
	opt.Gangs = &gangs
	in, err := untilDone(ctx, func() (*policy.Input, error) { return convert(inv, facts, cat, opt) })
	if err != nil {
		return nil, err
	}
	findings, err := engine.Eval(ctx, in)
	if err != nil {
		return nil, err
	}
	place(inv, findings)
	policy.Sort(findings)
	res := &Result{
		Findings: findings, Rules: engine.Rules(), Inventory: inv, Catalog: cat, Facts: facts, Profile: r.profile, Gangs: gangs,
		Summary: policy.Summary{Objects: inv.Objects, GPUNodes: facts.GPU()},
	}
	for _, u := range inv.Unread {
		res.Summary.UncheckedObjects += u.Count
	}
	res.Summary.SkippedFiles = len(inv.SkippedFiles)
	res.Skipped, res.Summary.SkippedRules = skipped(res.Rules, map[string]bool{
		NeedCatalog: cat.Configured(),
		NeedNodes:   len(inv.Nodes) > 0,
	})
	return res, nil
}

// What a rule's meta may say it needs (policy.Rule.Needs).
const (
	NeedCatalog = "catalog" // a --matrix or --registry
	NeedNodes   = "nodes"   // at least one Node
)

// Skip is a need the run does not meet, and the rules that need it.
type Skip struct {
	Need  string
	Rules []policy.Rule
}

// skipped lists, by need, the rules whose needs the run does not meet,
// and how many rules that is.
func skipped(rules []policy.Rule, met map[string]bool) ([]Skip, int) {
	var out []Skip
	count := map[string]bool{}
	for _, need := range []string{NeedCatalog, NeedNodes} {
		s := Skip{Need: need}
		for _, r := range rules {
			if slices.Contains(r.Needs, need) && !met[need] {
				s.Rules = append(s.Rules, r)
				count[r.ID] = true
			}
		}
		if len(s.Rules) > 0 {
			out = append(out, s)
		}
	}
	return out, len(count)
}

// convert builds the document and converts it for OPA. The drain model is
// the slowest part to build, so the rest of the document is converted
// while it is built, and the drain sections are added last.
func convert(inv *inventory.Inventory, facts *nodefacts.Set, cat *catalog.Catalog, opt input.Options) (*policy.Input, error) {
	type drained struct {
		sections map[string]any
		err      error
	}
	done := make(chan drained, 1)
	go func() {
		m, err := placement.New(inv)
		if err != nil {
			done <- drained{err: err}
			return
		}
		done <- drained{sections: input.DrainSections(facts, m, opt.Operator)}
	}()
	in, err := policy.NewInput(input.Build(inv, facts, cat, opt))
	d := <-done
	switch {
	case d.err != nil:
		return nil, d.err
	case err != nil:
		return nil, err
	}
	return in, in.Add(d.sections)
}

// options are the input document's options for a run: every object as
// read when custom rules may want them, and the CUDA policy.
func options(ctx context.Context, r *opened, compat string) (input.Options, error) {
	opt := input.Options{Operator: r.profile}
	var err error
	var notes []string
	if opt.GPU, notes, err = input.ConfigsOf(r.inv); err != nil {
		return opt, err
	}
	if r.warn != nil {
		for _, n := range notes {
			r.warn(n)
		}
	}
	if r.engine.Custom() {
		opt.Objects = rawObjects(r.inv)
	}
	opt.CUDA, err = cudaPolicy(ctx, r.engine, compat)
	return opt, err
}

// place fills file and line from where each finding's object was read.
func place(inv *inventory.Inventory, fs []policy.Finding) {
	for i := range fs {
		o := inv.Origin(fs[i].Object)
		if o == nil || o.Source == nil {
			continue
		}
		fs[i].File = o.Source.Name
		fs[i].Line = o.FieldLine(fs[i].Field)
	}
}

// rawObjects lists every object as read, for custom rules.
func rawObjects(inv *inventory.Inventory) []any {
	objs := inv.Raw()
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = o
	}
	return out
}

// WarnUnread tells cfg.Warn what a reading of files left out: the sources
// not followed and the files that hold no Kubernetes object.
func WarnUnread(cfg Config, inv *inventory.Inventory) {
	if cfg.Warn == nil {
		return
	}
	for _, u := range inv.Unread {
		cfg.Warn(u.String())
	}
	for _, n := range inv.Notes {
		cfg.Warn(n)
	}
	if n := len(inv.SkippedFiles); n > 0 {
		first := inv.SkippedFiles[0]
		cfg.Warn(fmt.Sprintf("skipped %d file(s) that hold no Kubernetes object (the first: %s: %s); --strict to fail", n, first.Path, first.Reason))
	}
}

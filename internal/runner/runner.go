package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/config"
	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/exceptions"
	"github.com/drvcheck/drvcheck/internal/input"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/load"
	"github.com/drvcheck/drvcheck/internal/registry"
	"github.com/drvcheck/drvcheck/policy"
)

// Config is everything a run reads.
type Config struct {
	Paths    []string
	Ignore   []string
	Stdin    io.Reader
	Matrix   []string
	Policies []string
	Data     []string

	// Registry names image repositories whose tags exist (--registry);
	// RegistryOptions say how to reach them (CA, timeout, cache, offline).
	Registry        []string
	RegistryOptions registry.Options
	// CUDACompat is --cuda-compat: minor (default) or strict.
	CUDACompat string
	// Exceptions come from the config file named by ConfigFile; Today
	// decides which have expired (zero: now).
	Exceptions []config.Exception
	ConfigFile string
	Today      time.Time
}

// Result is the outcome of a run.
type Result struct {
	Findings  []policy.Finding
	Rules     []policy.Rule
	Summary   policy.Summary
	Inventory *inventory.Inventory
	Catalog   *catalog.Catalog
	Drain     *drain.Model

	// Suppressed are findings held back by an exception; Expired are
	// exceptions past their date (see Except).
	Suppressed []exceptions.Suppressed
	Expired    []exceptions.Expired
}

// Inventory loads and decodes the objects under cfg.Paths; keepRaw keeps
// every manifest as read, for custom rules (input.objects).
func Inventory(cfg Config, keepRaw bool) (*inventory.Inventory, error) {
	return inventory.Read(cfg.Paths, load.Options{Ignore: cfg.Ignore, Stdin: cfg.Stdin}, keepRaw)
}

// Catalog reads every configured source of existing tags; see CatalogContext.
func Catalog(cfg Config) (*catalog.Catalog, error) {
	return CatalogContext(context.Background(), cfg)
}

// CatalogContext reads every configured source of existing tags into one
// catalog (a tag is present when any source has it): each matrix file, then
// each registry repository, listed once, in parallel. A repository that
// cannot be listed fails the whole catalog.
func CatalogContext(ctx context.Context, cfg Config) (*catalog.Catalog, error) {
	cat := catalog.New()
	for _, path := range cfg.Matrix {
		rows, err := catalog.ReadMatrix(path)
		if err != nil {
			return nil, err
		}
		tags := make([]string, len(rows))
		for i, r := range rows {
			tags[i] = r.Tag()
		}
		cat.Add(path, tags)
	}
	if len(cfg.Registry) == 0 {
		return cat, nil
	}
	lister, err := registry.New(cfg.RegistryOptions)
	if err != nil {
		return nil, err
	}
	listings, err := lister.List(ctx, cfg.Registry)
	if err != nil {
		return nil, err
	}
	for _, l := range listings {
		cat.Add(l.Repository, l.Tags)
	}
	return cat, nil
}

// Reader reads the objects of a run; keepRaw asks it to keep every object
// as read, which custom rules see as input.objects.
type Reader func(keepRaw bool) (*inventory.Inventory, error)

// Run is every run, whatever its objects come from: compile the rules,
// read the objects, then finish.
func Run(ctx context.Context, cfg Config, read Reader) (*Result, error) {
	engine, err := policy.New(ctx, policy.Options{Policies: cfg.Policies, Data: cfg.Data})
	if err != nil {
		return nil, err
	}
	inv, err := read(engine.Custom())
	if err != nil {
		return nil, err
	}
	return finish(ctx, cfg, engine, inv)
}

// Check runs every rule over the objects of cfg.
func Check(ctx context.Context, cfg Config) (*Result, error) {
	return Run(ctx, cfg, func(keepRaw bool) (*inventory.Inventory, error) { return Inventory(cfg, keepRaw) })
}

// finish is the end every run shares, whatever its objects came from: the
// catalog, the rules, then the exceptions.
func finish(ctx context.Context, cfg Config, engine *policy.Engine, inv *inventory.Inventory) (*Result, error) {
	cat, err := CatalogContext(ctx, cfg)
	if err != nil {
		return nil, err
	}
	res, err := Evaluate(ctx, engine, inv, cat, Settings{CUDACompat: cfg.CUDACompat})
	if err != nil {
		return nil, err
	}
	return res, Except(res, cfg)
}

// Evaluate builds the input document and evaluates engine over it. The
// settings are optional; without them the defaults apply.
func Evaluate(ctx context.Context, engine *policy.Engine, inv *inventory.Inventory, cat *catalog.Catalog, settings ...Settings) (*Result, error) {
	var opt input.Options
	if engine.Custom() {
		opt.Objects = rawObjects(inv)
	}
	var err error
	if opt.CUDA, err = cudaPolicy(ctx, engine, settings); err != nil {
		return nil, err
	}
	// The drain model and the rest of the document are independent: build
	// and convert them at once, so that the slowest to build overlaps the
	// conversion of the other.
	var (
		model      *drain.Model
		drainValue ast.Object
		drainErr   error
		wg         sync.WaitGroup
	)
	wg.Go(func() {
		if model, drainErr = drain.New(inv); drainErr == nil {
			drainValue, drainErr = toValue(input.DrainSections(model))
		}
	})
	doc := input.Build(inv, cat, opt)
	value, err := toValue(doc)
	wg.Wait()
	if drainErr != nil {
		return nil, drainErr
	}
	if err != nil {
		return nil, fmt.Errorf("input document: %w", err)
	}
	drainValue.Foreach(func(k, v *ast.Term) { value.Insert(k, v) })
	findings, err := engine.Eval(ctx, value)
	if err != nil {
		return nil, err
	}
	place(inv, findings)
	policy.Sort(findings)
	res := &Result{Findings: findings, Rules: engine.Rules(), Inventory: inv, Catalog: cat, Drain: model}
	res.Summary = summarize(doc, findings, inv)
	return res, nil
}

// toValue converts the document for OPA on every CPU: on a large fleet the
// conversion costs as much as evaluating the rules. Each section is
// converted apart, and long lists (workloads, nodes, budgets) in chunks.
func toValue(doc map[string]any) (ast.Object, error) {
	type part struct {
		key  string
		list bool // a chunk of a list section, converted as an array
		val  any
	}
	var parts []part
	chunks := runtime.GOMAXPROCS(0)
	for _, k := range slices.Sorted(maps.Keys(doc)) {
		list, ok := doc[k].([]any)
		if !ok || len(list) == 0 {
			parts = append(parts, part{key: k, val: doc[k]})
			continue
		}
		size := (len(list) + chunks - 1) / chunks
		for start := 0; start < len(list); start += size {
			parts = append(parts, part{key: k, list: true, val: list[start:min(start+size, len(list))]})
		}
	}
	values := make([]ast.Value, len(parts))
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Go(func() { values[i], errs[i] = newConverter().value(p.val) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	obj := ast.NewObject()
	for i := 0; i < len(parts); {
		key := parts[i].key
		if !parts[i].list {
			obj.Insert(ast.StringTerm(key), ast.NewTerm(values[i]))
			i++
			continue
		}
		var items []*ast.Term
		for ; i < len(parts) && parts[i].key == key; i++ {
			arr := values[i].(*ast.Array)
			for k := range arr.Len() {
				items = append(items, arr.Elem(k))
			}
		}
		obj.Insert(ast.StringTerm(key), ast.ArrayTerm(items...))
	}
	return obj, nil
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

func summarize(doc map[string]any, fs []policy.Finding, inv *inventory.Inventory) policy.Summary {
	s := policy.Summary{Objects: inv.Objects}
	s.GPUNodes, _ = doc["summary"].(map[string]any)["gpu_nodes"].(int)
	for _, f := range fs {
		switch f.Severity {
		case policy.Error:
			s.Errors++
		case policy.Warning:
			s.Warnings++
		}
	}
	return s
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

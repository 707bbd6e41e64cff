package policy

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/drvcheck/drvcheck/internal/repofs"
)

// Options are the user's additions to the built-in rules, and the bounds
// they run in.
type Options struct {
	Policies []string // .rego files or folders (--policy)
	Data     []string // JSON or YAML data files (--data)
	// AllowNet names the hosts http.send and net.lookup_ip_addr may reach
	// (--allow-net); none by default, so that no rule sends the input out.
	AllowNet []string
	// Timeout bounds one evaluation of the rules (--timeout); 0: none.
	Timeout time.Duration
	// FS reads the policy and data files (internal/repofs); nil reads
	// them as named.
	FS *repofs.FS
}

// Engine holds the rules of one run, compiled and prepared once.
type Engine struct {
	findings []rego.PreparedEvalQuery // one per rule package, evaluated in parallel
	where    []string                 // each package's findings rule, FILE:ROW
	pkgs     []string                 // each package's path
	rules    []Rule
	byPkg    map[string]Rule // the meta of each package that declares one
	custom   bool
	store    storage.Store // the user's data (--data), read by Data
	timeout  time.Duration
}

// New compiles the built-in and the user's rules and prepares the query.
func New(ctx context.Context, opt Options) (*Engine, error) {
	mods, custom, store, err := sources(opt, false)
	if err != nil {
		return nil, err
	}
	caps := capabilities(opt.AllowNet)
	compiler := ast.NewCompiler().WithStrict(false).WithCapabilities(caps)
	if compiler.Compile(moduleMap(mods)); compiler.Failed() {
		return nil, oneLine(compiler.Errors)
	}
	base := []func(*rego.Rego){rego.Compiler(compiler), rego.Store(store), rego.StrictBuiltinErrors(true), rego.Capabilities(caps)}
	e := &Engine{custom: custom, store: store, timeout: opt.Timeout}
	for _, pkg := range rulePackages(compiler) {
		pq, err := rego.New(append(base, rego.Query(pkg.path+".findings[_]"))...).PrepareForEval(ctx)
		if err != nil {
			return nil, oneLine(err)
		}
		e.findings = append(e.findings, pq)
		e.where = append(e.where, pkg.where)
		e.pkgs = append(e.pkgs, pkg.path)
	}
	if e.rules, e.byPkg, err = readRules(ctx, base); err != nil {
		return nil, err
	}
	return e, nil
}

// Only is e evaluating only the rule packages whose meta keep accepts; a
// package without meta is not evaluated. Rules still lists every rule.
func (e *Engine) Only(keep func(Rule) bool) *Engine {
	o := *e
	o.findings, o.where, o.pkgs = nil, nil, nil
	for i, pkg := range e.pkgs {
		if r, ok := e.byPkg[pkg]; ok && keep(r) {
			o.findings = append(o.findings, e.findings[i])
			o.where = append(o.where, e.where[i])
			o.pkgs = append(o.pkgs, pkg)
		}
	}
	return &o
}

// Custom reports whether the user added rules of their own.
func (e *Engine) Custom() bool { return e.custom }

// Rules lists the meta of every rule that declares one.
func (e *Engine) Rules() []Rule { return e.rules }

// Eval evaluates every rule over input and returns the findings, unsorted
// and without file and line.
//
// Rule packages are independent, so they are evaluated in parallel, one
// worker per CPU; the findings come back in package order.
func (e *Engine) Eval(ctx context.Context, input *Input) ([]Finding, error) {
	if e.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, e.timeout, errTimeout)
		defer cancel()
	}
	results := make([][]Finding, len(e.findings))
	errs := make([]error, len(e.findings))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(e.findings)) {
		wg.Go(func() {
			for i := range jobs {
				results[i], errs[i] = evalOne(ctx, e.findings[i], e.where[i], input.obj)
			}
		})
	}
	for i := range e.findings {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	var out []Finding
	if errors.Is(context.Cause(ctx), errTimeout) {
		return nil, fmt.Errorf("the rules did not finish within %s (--timeout): a rule may iterate over too much", e.timeout)
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx) // the run's own deadline says what it was
	}
	for i := range results {
		if errs[i] != nil {
			return nil, errs[i]
		}
		out = append(out, results[i]...)
	}
	return out, nil
}

var errTimeout = errors.New("evaluation deadline")

// capabilities are OPA's built-ins without the network and the
// environment: http.send and net.lookup_ip_addr reach no host but those
// allowNet names, so that no rule sends the input (or anything) out, even
// under --offline; opa.runtime, which holds the environment and so
// credentials, is not there at all.
func capabilities(allowNet []string) *ast.Capabilities {
	c := ast.CapabilitiesForThisVersion()
	c.AllowNet = append([]string{}, allowNet...)
	c.Builtins = slices.DeleteFunc(c.Builtins, func(b *ast.Builtin) bool { return b.Name == "opa.runtime" })
	return c
}

func evalOne(ctx context.Context, pq rego.PreparedEvalQuery, where string, input ast.Value) ([]Finding, error) {
	rs, err := pq.Eval(ctx, rego.EvalParsedInput(input), rego.EvalGenerateJSON(decoder(where)))
	if err != nil {
		return nil, oneLine(err)
	}
	out := make([]Finding, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.Expressions[0].Value.(Finding))
	}
	return out, nil
}

// rulePackage is a package that defines findings, and where its first
// findings rule is (FILE:ROW), for errors about what the rule produced.
type rulePackage struct{ path, where string }

// rulePackages lists, sorted, every package under drvcheck.rules (at any
// depth) that defines findings.
func rulePackages(c *ast.Compiler) []rulePackage {
	seen := map[string]string{}
	for _, m := range c.Modules {
		pkg := m.Package.Path.String()
		if !strings.HasPrefix(pkg, "data."+RulesPackage+".") {
			continue
		}
		for _, r := range m.Rules {
			if r.Head.Name.String() != "findings" && r.Head.Ref().String() != "findings" {
				continue
			}
			if where := fmt.Sprintf("%s:%d", r.Location.File, r.Location.Row); seen[pkg] == "" || where < seen[pkg] {
				seen[pkg] = where
			}
		}
	}
	out := make([]rulePackage, 0, len(seen))
	for p, where := range seen {
		out = append(out, rulePackage{p, where})
	}
	slices.SortFunc(out, func(a, b rulePackage) int { return strings.Compare(a.path, b.path) })
	return out
}

func moduleMap(mods []*ast.Module) map[string]*ast.Module {
	out := make(map[string]*ast.Module, len(mods))
	for _, m := range mods {
		out[m.Package.Location.File] = m
	}
	return out
}

// dataStore holds the built-in data (rego/data) with the user's files
// over it: a key the user sets wins over the built-in one.
func dataStore(files []string, withTests bool, fsys *repofs.FS) (storage.Store, error) {
	docs, err := builtinData(withTests)
	if err != nil {
		return nil, err
	}
	if len(files) > 0 {
		res, err := loader.NewFileLoader().WithFS(fsys.Given()).WithRegoVersion(ast.RegoV1).All(files)
		if err != nil {
			return nil, fmt.Errorf("data: %w", oneLine(err))
		}
		merge(docs, res.Documents)
	}
	return inmem.NewFromObject(docs), nil
}

// merge copies src into dst, key by key, descending into objects both have.
func merge(dst, src map[string]any) {
	for k, v := range src {
		d, dOK := dst[k].(map[string]any)
		s, sOK := v.(map[string]any)
		if dOK && sOK {
			merge(d, s)
			continue
		}
		dst[k] = v
	}
}

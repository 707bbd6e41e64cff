package policy

import (
	"context"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
)

// Options are the user's additions to the built-in rules.
type Options struct {
	Policies []string // .rego files or folders (--policy)
	Data     []string // JSON or YAML data files (--data)
}

// Engine holds the rules of one run, compiled and prepared once.
type Engine struct {
	findings rego.PreparedEvalQuery
	rules    []Rule
	custom   bool
	store    storage.Store // the user's data (--data), read by Data
}

// New compiles the built-in and the user's rules and prepares the query.
func New(ctx context.Context, opt Options) (*Engine, error) {
	mods, err := builtinModules(false)
	if err != nil {
		return nil, err
	}
	user, err := userModules(opt.Policies, false)
	if err != nil {
		return nil, err
	}
	mods = append(mods, user...)
	store, err := dataStore(opt.Data)
	if err != nil {
		return nil, err
	}
	compiler := ast.NewCompiler().WithStrict(false)
	if compiler.Compile(moduleMap(mods)); compiler.Failed() {
		return nil, oneLine(compiler.Errors)
	}
	base := []func(*rego.Rego){rego.Compiler(compiler), rego.Store(store), rego.StrictBuiltinErrors(true)}
	pq, err := rego.New(append(base, rego.Query("data."+RulesPackage+"[_].findings[_]"))...).PrepareForEval(ctx)
	if err != nil {
		return nil, oneLine(err)
	}
	e := &Engine{findings: pq, custom: len(user) > 0, store: store}
	if e.rules, err = readRules(ctx, base); err != nil {
		return nil, err
	}
	return e, nil
}

// Custom reports whether the user added rules of their own.
func (e *Engine) Custom() bool { return e.custom }

// Rules lists the meta of every rule that declares one.
func (e *Engine) Rules() []Rule { return e.rules }

// Eval evaluates every rule over input and returns the findings, unsorted
// and without file and line.
func (e *Engine) Eval(ctx context.Context, input ast.Value) ([]Finding, error) {
	rs, err := e.findings.Eval(ctx, rego.EvalParsedInput(input))
	if err != nil {
		return nil, oneLine(err)
	}
	out := make([]Finding, 0, len(rs))
	for _, r := range rs {
		f, err := toFinding(r.Expressions[0].Value)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func moduleMap(mods []*ast.Module) map[string]*ast.Module {
	out := make(map[string]*ast.Module, len(mods))
	for _, m := range mods {
		out[m.Package.Location.File] = m
	}
	return out
}

func dataStore(files []string) (storage.Store, error) {
	if len(files) == 0 {
		return inmem.New(), nil
	}
	res, err := loader.NewFileLoader().WithRegoVersion(ast.RegoV1).All(files)
	if err != nil {
		return nil, fmt.Errorf("data: %w", oneLine(err))
	}
	return inmem.NewFromObject(res.Documents), nil
}

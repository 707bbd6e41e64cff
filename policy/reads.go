package policy

import (
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/util"
)

// reads is what a rule package reads of the input: the top-level keys its
// findings, and every rule and function they depend on, name; or, when
// one of them takes the input whole or by a key it computes (input,
// input[k], object.get(input, ...)), all of it.
type reads struct {
	keys  map[string]bool
	whole bool
}

// any says whether r reads any of keys.
func (r reads) any(keys []string) bool {
	if r.whole {
		return len(keys) > 0
	}
	for _, k := range keys {
		if r.keys[k] {
			return true
		}
	}
	return false
}

// inputReads walks the compiler's dependency graph from the rules of pkg
// (a package path such as data.drvcheck.rules.drv001) and collects what
// they read of the input. The graph lists every rule a reference may
// select, dynamic ones included, so the answer errs on the side of more.
func inputReads(c *ast.Compiler, pkg string) reads {
	r := reads{keys: map[string]bool{}}
	seen := map[util.T]bool{}
	var todo []util.T
	for _, rule := range c.GetRules(ast.MustParseRef(pkg)) {
		todo = append(todo, rule)
	}
	for len(todo) > 0 {
		x := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if seen[x] {
			continue
		}
		seen[x] = true
		if rule, ok := x.(*ast.Rule); ok {
			r.add(rule)
		}
		for dep := range c.Graph.Dependencies(x) {
			todo = append(todo, dep)
		}
	}
	return r
}

// add notes what one rule (its head, body and else branches) reads.
func (r *reads) add(rule *ast.Rule) {
	var visit func(t *ast.Term) bool
	visit = func(t *ast.Term) bool {
		switch v := t.Value.(type) {
		case ast.Ref:
			if !v[0].Equal(ast.InputRootDocument) {
				return false
			}
			r.key(v)
			for _, e := range v[1:] {
				ast.WalkTerms(e, visit)
			}
			return true
		case ast.Var:
			// input outside a reference, as a function's argument.
			r.whole = r.whole || v.Equal(ast.InputRootDocument.Value)
		}
		return false
	}
	ast.WalkTerms(rule, visit)
}

// key notes the top-level key ref (which starts at input) reads.
func (r *reads) key(ref ast.Ref) {
	if len(ref) < 2 {
		r.whole = true
		return
	}
	s, ok := ref[1].Value.(ast.String)
	if !ok {
		r.whole = true
		return
	}
	r.keys[string(s)] = true
}

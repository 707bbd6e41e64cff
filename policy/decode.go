package policy

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/drvcheck/drvcheck/internal/object"
)

// findingKeys are the keys a finding may have, and where each goes. A rule
// that writes any other key has a typo (a misspelt "field" would silently
// lose the finding its line), so that is an error naming the rule.
var findingKeys = map[string]func(f *Finding, v ast.Value) bool{
	"rule":     str(func(f *Finding) *string { return &f.Rule }),
	"title":    str(func(f *Finding) *string { return &f.Title }),
	"severity": str(func(f *Finding) *string { return &f.Severity }),
	"node":     str(func(f *Finding) *string { return &f.Node }),
	"tag":      str(func(f *Finding) *string { return &f.Tag }),
	"message":  str(func(f *Finding) *string { return &f.Message }),
	"image":    str(func(f *Finding) *string { return &f.Image }),
	"fix":      str(func(f *Finding) *string { return &f.Fix }),
	"object":   decodeObject,
	"field":    decodeField,
	"stalls":   decodeStalls,
}

func str(dst func(*Finding) *string) func(*Finding, ast.Value) bool {
	return func(f *Finding, v ast.Value) bool {
		s, ok := v.(ast.String)
		*dst(f) = string(s)
		return ok
	}
}

// decoder turns the findings of one rule package into Findings straight
// from OPA's values; where is the package's findings rule (FILE:ROW), for
// errors.
func decoder(where string) func(*ast.Term, *rego.EvalContext) (any, error) {
	return func(t *ast.Term, _ *rego.EvalContext) (any, error) {
		f, err := toFinding(t.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		return f, nil
	}
}

// toFinding checks that a rule produced the documented shape.
func toFinding(v ast.Value) (Finding, error) {
	obj, ok := v.(ast.Object)
	if !ok {
		return Finding{}, fmt.Errorf("a findings rule produced %v, not an object", v)
	}
	var f Finding
	var err error
	obj.Foreach(func(k, x *ast.Term) {
		key, _ := k.Value.(ast.String)
		set, known := findingKeys[string(key)]
		switch {
		case err != nil:
		case !known:
			err = fmt.Errorf("finding has unknown key %v (a finding has %s)", k, strings.Join(slices.Sorted(maps.Keys(findingKeys)), ", "))
		case !set(&f, x.Value):
			err = fmt.Errorf("finding key %v is %v, of the wrong type", k, x)
		}
	})
	if err != nil {
		return Finding{}, err
	}
	return f, check(f)
}

func check(f Finding) error {
	switch {
	case f.Rule == "":
		return fmt.Errorf("a finding has no rule id: %s", f.Message)
	case Rank(f.Severity) == 0:
		return fmt.Errorf("rule %s: severity %q is not error, warning or info", f.Rule, f.Severity)
	case f.Message == "":
		return fmt.Errorf("rule %s: a finding has no message", f.Rule)
	case f.Object.Kind == "" || f.Object.Name == "":
		return fmt.Errorf("rule %s: a finding has no object {kind, namespace, name}", f.Rule)
	}
	return nil
}

func decodeObject(f *Finding, v ast.Value) bool {
	obj, ok := v.(ast.Object)
	if !ok {
		return false
	}
	var r object.Ref
	for key, dst := range map[string]*string{"kind": &r.Kind, "namespace": &r.Namespace, "name": &r.Name} {
		if t := obj.Get(ast.StringTerm(key)); t != nil {
			s, ok := t.Value.(ast.String)
			if !ok {
				return false
			}
			*dst = string(s)
		}
	}
	f.Object = r
	return true
}

// decodeField takes a JSON pointer (the form of every field in the input
// document) or an array of keys and indexes.
func decodeField(f *Finding, v ast.Value) bool {
	switch x := v.(type) {
	case ast.String:
		f.Field = fromPointer(string(x))
		return true
	case *ast.Array:
		var path []any
		err := ast.As(x, &path)
		f.Field = path
		return err == nil
	}
	return false
}

func decodeStalls(f *Finding, v ast.Value) bool {
	var names []string
	if err := ast.As(v, &names); err != nil {
		return false
	}
	f.Stalls = names
	return true
}

// readRules evaluates every rule package's meta once.
func readRules(ctx context.Context, base []func(*rego.Rego)) ([]Rule, map[string]Rule, error) {
	rs, err := rego.New(append(base, rego.Query("meta := data."+RulesPackage+"[name].meta"))...).Eval(ctx)
	if err != nil {
		return nil, nil, oneLine(err)
	}
	var out []Rule
	byPkg := map[string]Rule{}
	for _, r := range rs {
		raw, _ := json.Marshal(r.Bindings["meta"])
		var rule Rule
		var also struct{ Rollout bool }
		if err := json.Unmarshal(raw, &rule); err != nil || rule.ID == "" || rule.Title == "" || Rank(rule.Severity) == 0 {
			return nil, nil, fmt.Errorf("policy: a rule meta %s lacks id, title or severity", raw)
		}
		if err := json.Unmarshal(raw, &also); err != nil {
			return nil, nil, fmt.Errorf("policy: rule %s: meta rollout is not true or false", rule.ID)
		}
		rule.Rollout = also.Rollout
		out = append(out, rule)
		if name, ok := r.Bindings["name"].(string); ok {
			byPkg["data."+RulesPackage+"."+name] = rule
		}
	}
	slices.SortFunc(out, func(a, b Rule) int { return cmp.Compare(a.ID, b.ID) })
	return out, byPkg, nil
}

// fromPointer splits a JSON pointer (RFC 6901), the form the input document
// gives fields in, into the path a finding's line is found with. List
// indexes stay strings; the loader reads a numeric part as an index where
// the document holds a list.
func fromPointer(p string) []any {
	if p == "" {
		return nil
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	out := make([]any, len(parts))
	for i, s := range parts {
		out[i] = unescape.Replace(s)
	}
	return out
}

var unescape = strings.NewReplacer("~1", "/", "~0", "~")

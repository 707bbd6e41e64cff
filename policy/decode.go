package policy

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/rego"
)

// toFinding checks that a rule produced the documented shape.
func toFinding(v any) (Finding, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return Finding{}, fmt.Errorf("policy: a findings rule produced %v, not an object", v)
	}
	var f Finding
	raw, err := json.Marshal(m)
	if err == nil {
		err = json.Unmarshal(raw, &f)
	}
	if err != nil {
		return Finding{}, fmt.Errorf("policy: finding %v: %v", m, err)
	}
	switch field := m["field"].(type) {
	case []any:
		f.Field = field
	case string:
		f.Field = fromPointer(field)
	}
	switch {
	case f.Rule == "":
		return Finding{}, fmt.Errorf("policy: a finding has no rule id: %s", raw)
	case Rank(f.Severity) == 0:
		return Finding{}, fmt.Errorf("policy: rule %s: severity %q is not error, warning or info", f.Rule, f.Severity)
	case f.Message == "":
		return Finding{}, fmt.Errorf("policy: rule %s: a finding has no message", f.Rule)
	case f.Object.Kind == "" || f.Object.Name == "":
		return Finding{}, fmt.Errorf("policy: rule %s: a finding has no object {kind, namespace, name}", f.Rule)
	}
	return f, nil
}

// readRules evaluates every rule package's meta once.
func readRules(ctx context.Context, base []func(*rego.Rego)) ([]Rule, error) {
	rs, err := rego.New(append(base, rego.Query("data."+RulesPackage+"[_].meta"))...).Eval(ctx)
	if err != nil {
		return nil, oneLine(err)
	}
	var out []Rule
	for _, r := range rs {
		raw, _ := json.Marshal(r.Expressions[0].Value)
		var rule Rule
		if err := json.Unmarshal(raw, &rule); err != nil || rule.ID == "" {
			return nil, fmt.Errorf("policy: a rule meta %s lacks id, title or severity", raw)
		}
		out = append(out, rule)
	}
	slices.SortFunc(out, func(a, b Rule) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
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
		out[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(s)
	}
	return out
}

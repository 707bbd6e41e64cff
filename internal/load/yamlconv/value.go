package yamlconv

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	yaml "sigs.k8s.io/yaml/goyaml.v3"
)

// maxAliased bounds how many values one document's aliases may expand to,
// so that a few aliases cannot blow up into billions of values ("billion
// laughs"). Only values reached through an alias count: a large list
// without aliases (kubectl get nodes -o json of a fleet) costs nothing.
const maxAliased = 1 << 18

// converter turns a parsed YAML tree into the plain values that JSON would
// give (map[string]any, []any, string, int64, float64, bool, nil).
type converter struct {
	budget  int   // values aliases may still expand to
	aliased int   // > 0 while converting what an alias points at
	lines   Lines // filled with the line of every field, by path hash
	wide    bool  // a number beyond 32 bits was read
}

// Document converts a document's root mapping: its values, the line of
// each of its fields, and whether it holds a number beyond 32 bits (only
// then need its decoding be checked for a wrapped field).
func Document(root *yaml.Node) (map[string]any, Lines, bool, error) {
	c := &converter{budget: maxAliased}
	m, err := c.mapping(root, 0)
	if err != nil {
		return nil, nil, false, err
	}
	c.lines.sort()
	return m, c.lines, c.wide, nil
}

func (c *converter) value(n *yaml.Node, path uint64) (any, error) {
	if c.aliased > 0 {
		c.budget--
		if c.budget < 0 {
			return nil, fmt.Errorf("%d: aliases expand to more than %d values", n.Line, maxAliased)
		}
	}
	switch n.Kind {
	case yaml.MappingNode:
		return c.mapping(n, path)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, item := range n.Content {
			h := indexHash(path, i)
			c.lines.add(h, item.Line)
			v, err := c.value(item, h)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.AliasNode:
		c.aliased++
		defer func() { c.aliased-- }()
		return c.value(n.Alias, path)
	case yaml.ScalarNode:
		v, err := scalar(n)
		c.wide = c.wide || beyond32(v)
		return v, err
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0], path)
	}
	return nil, fmt.Errorf("%d: unsupported YAML node", n.Line)
}

func (c *converter) mapping(n *yaml.Node, path uint64) (map[string]any, error) {
	out := make(map[string]any, len(n.Content)/2)
	var merged map[string]bool // keys a "<<" set, which a key of its own may override
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			var err error
			if merged, err = c.merge(out, v, path, merged); err != nil {
				return nil, err
			}
			continue
		}
		if k.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%d: mapping key is not a scalar", k.Line)
		}
		if _, set := out[k.Value]; set && !merged[k.Value] {
			return nil, duplicate(n, i)
		}
		delete(merged, k.Value)
		h := keyHash(path, k.Value)
		c.lines.add(h, k.Line)
		val, err := c.value(v, h)
		if err != nil {
			return nil, err
		}
		out[k.Value] = val
	}
	return out, nil
}

// merge applies a "<<" merge key: keys already set win. It returns the
// keys it set, to which merged is added.
func (c *converter) merge(dst map[string]any, v *yaml.Node, path uint64, merged map[string]bool) (map[string]bool, error) {
	srcs := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		srcs = v.Content
	}
	if merged == nil {
		merged = map[string]bool{}
	}
	for _, s := range srcs {
		val, err := c.value(s, path)
		if err != nil {
			return nil, err
		}
		m, ok := val.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%d: merge value is not a mapping", s.Line)
		}
		for k, x := range m {
			if _, set := dst[k]; !set {
				dst[k], merged[k] = x, true
			}
		}
	}
	return merged, nil
}

// duplicate words the error of the key at n.Content[i], which an earlier
// key of the same mapping already names. YAML forbids it, and taking the
// last (as many parsers do) would let a later `gpu.present: "false"` hide
// a GPU node from the audit.
func duplicate(n *yaml.Node, i int) error {
	k := n.Content[i]
	first := k.Line
	for j := 0; j < i; j += 2 {
		if n.Content[j].Value == k.Value {
			first = n.Content[j].Line
			break
		}
	}
	return fmt.Errorf("%d: key %q appears twice in one mapping (first on line %d)", k.Line, k.Value, first)
}

// beyond32 reports a number that a 32-bit field would wrap.
func beyond32(v any) bool {
	switch x := v.(type) {
	case int64:
		return x > math.MaxInt32 || x < math.MinInt32
	case float64:
		return x > math.MaxInt32 || x < math.MinInt32
	}
	return false
}

func scalar(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		b, err := strconv.ParseBool(n.Value)
		if err != nil {
			return nil, fmt.Errorf("%d: invalid bool %q", n.Line, n.Value)
		}
		return b, nil
	case "!!int":
		return integer(n)
	case "!!float":
		return float(n)
	default: // !!str, !!timestamp, !!binary and custom tags read as text, as in JSON
		return n.Value, nil
	}
}

func integer(n *yaml.Node) (any, error) {
	s := strings.ReplaceAll(n.Value, "_", "")
	if i, err := strconv.ParseInt(s, 0, 64); err == nil {
		return i, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil { // larger than int64
		return f, nil
	}
	return nil, fmt.Errorf("%d: invalid integer %q", n.Line, n.Value)
}

func float(n *yaml.Node) (any, error) {
	switch strings.ToLower(n.Value) {
	case ".inf", "+.inf", ".nan", "-.inf":
		return nil, fmt.Errorf("%d: %s has no JSON form", n.Line, n.Value)
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%d: invalid number %q", n.Line, n.Value)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f), nil // JSON has one number type; 1.0 reads as 1
	}
	return f, nil
}

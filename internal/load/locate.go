package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strconv"

	yaml "sigs.k8s.io/yaml/goyaml.v3"
)

// Locator finds the line of a field inside an object by parsing its source
// again. Only sources that hold findings are read, each once.
type Locator struct {
	docs map[*Source][]*yaml.Node
}

// NewLocator returns an empty Locator.
func NewLocator() *Locator { return &Locator{docs: map[*Source][]*yaml.Node{}} }

// Line returns the line of the field at path inside o (map keys as strings,
// list indexes as numbers or numeric strings). When the path cannot be
// followed to its end, it returns the line of the deepest part found, and
// at least the object's own line.
func (l *Locator) Line(o *Object, path []any) int {
	if o.Source == nil || len(path) == 0 {
		return o.Line
	}
	docs := l.documents(o.Source)
	if o.Doc >= len(docs) || len(docs[o.Doc].Content) == 0 {
		return o.Line
	}
	n := docs[o.Doc].Content[0]
	if o.Item >= 0 {
		_, items := child(n, "items")
		if items == nil || o.Item >= len(items.Content) {
			return o.Line
		}
		n = items.Content[o.Item]
	}
	line := o.Line
	for _, p := range path {
		var at int
		n, at = step(n, p)
		if n == nil {
			break
		}
		line = at
	}
	return line
}

func (l *Locator) documents(src *Source) []*yaml.Node {
	if d, ok := l.docs[src]; ok {
		return d
	}
	data := src.data
	if data == nil {
		data, _ = os.ReadFile(src.Name) // a file that vanished keeps document lines
	}
	var docs []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if !errors.Is(err, io.EOF) {
				docs = nil
			}
			break
		}
		docs = append(docs, &n)
	}
	l.docs[src] = docs
	return docs
}

// step follows one path element and returns the node reached and the line
// that names it: a mapping key's own line, or a list item's first line.
func step(n *yaml.Node, p any) (*yaml.Node, int) {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil {
		return nil, 0
	}
	switch n.Kind {
	case yaml.MappingNode:
		if key, ok := p.(string); ok {
			k, v := child(n, key)
			if v != nil {
				return v, k.Line
			}
		}
	case yaml.SequenceNode:
		if i, ok := index(p); ok && i >= 0 && i < len(n.Content) {
			return n.Content[i], n.Content[i].Line
		}
	}
	return nil, 0
}

func child(n *yaml.Node, key string) (k, v *yaml.Node) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}

func index(p any) (int, bool) {
	switch v := p.(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case float64:
		return int(v), true
	case json.Number: // how list indexes come back from Rego
		i, err := v.Int64()
		return int(i), err == nil
	case string:
		i, err := strconv.Atoi(v)
		return i, err == nil
	}
	return 0, false
}

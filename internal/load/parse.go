package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	yaml "sigs.k8s.io/yaml/goyaml.v3"

	"github.com/drvcheck/drvcheck/internal/load/yamlconv"
	"github.com/drvcheck/drvcheck/internal/oneline"
)

// Parse reads every object in data, which holds one YAML stream or JSON
// document read from src. Errors name the source and the line.
func Parse(src *Source, data []byte) ([]*Object, error) { return ParseTyped(src, data, nil) }

// ParseTyped is Parse, decoding the objects of the kinds typed names as it
// parses them (see Options.Typed).
func ParseTyped(src *Source, data []byte, typed func(apiVersion, kind string) reflect.Type) ([]*Object, error) {
	var out []*Object
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for doc := 0; ; doc++ {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%s", src.Name, oneline.Escape(yamlError(err)))
		}
		if objs := decodeTyped(src, doc, &n, typed); objs != nil {
			out = append(out, objs...)
			continue
		}
		objs, err := documentObjects(src, doc, &n)
		if err != nil {
			return nil, fmt.Errorf("%s:%s", src.Name, oneline.Escape(err.Error()))
		}
		out = append(out, objs...)
	}
}

// yamlError turns "yaml: line 3: did not find expected key" into
// "3: did not find expected key" so that it reads as file:line: reason.
func yamlError(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		return rest
	}
	return " " + msg
}

func documentObjects(src *Source, doc int, n *yaml.Node) ([]*Object, error) {
	if len(n.Content) == 0 {
		return nil, nil // empty document, e.g. a trailing "---"
	}
	root := n.Content[0]
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%d: document is not a mapping", root.Line)
	}
	m, lines, wide, err := yamlconv.Document(root)
	if err != nil {
		return nil, err
	}
	obj, err := newObject(m, "", "", root.Line)
	if err != nil {
		return nil, err
	}
	obj.Source, obj.Doc, obj.Item, obj.lines, obj.wide = src, doc, -1, lines, wide
	if !isList(obj) {
		return []*Object{obj}, nil
	}
	return listItems(obj, root)
}

// isList tells "kind: List" (kubectl get -o yaml) and typed lists such as
// NodeList (kubectl get --raw) apart from ordinary kinds.
func isList(o *Object) bool {
	if o.Kind == "List" {
		return true
	}
	_, hasItems := o.Raw["items"].([]any)
	return strings.HasSuffix(o.Kind, "List") && hasItems
}

func listItems(list *Object, root *yaml.Node) ([]*Object, error) {
	items, ok := list.Raw["items"].([]any)
	if !ok && list.Raw["items"] != nil {
		return nil, fmt.Errorf("%d: %s items is not a list", list.Line, list.Kind)
	}
	lines := itemLines(root)
	// Items of a typed list carry no kind of their own.
	kind, apiVersion := strings.TrimSuffix(list.Kind, "List"), list.APIVersion
	if list.Kind == "List" {
		kind, apiVersion = "", ""
	}
	out := make([]*Object, 0, len(items))
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%d: item %d of the List is not a mapping", lines[i], i)
		}
		obj, err := newObject(m, kind, apiVersion, lines[i])
		if err != nil {
			return nil, err
		}
		obj.Source, obj.Doc, obj.Item, obj.lines, obj.wide = list.Source, list.Doc, i, list.lines, list.wide
		obj.root = yamlconv.ItemRoot(i)
		out = append(out, obj)
	}
	return out, nil
}

func itemLines(root *yaml.Node) []int {
	items := field(root, "items")
	if items == nil {
		return nil
	}
	var lines []int
	for _, it := range items.Content {
		lines = append(lines, it.Line)
	}
	return lines
}

func newObject(m map[string]any, kind, apiVersion string, line int) (*Object, error) {
	o := &Object{Raw: m, Line: line, Kind: kind, APIVersion: apiVersion}
	if err := stringField(m, &o.Kind, line, "kind"); err != nil {
		return nil, err
	}
	if err := stringField(m, &o.APIVersion, line, "apiVersion"); err != nil {
		return nil, err
	}
	if o.Kind == "" {
		return nil, fmt.Errorf("%d: document has no kind", line)
	}
	meta, _ := m["metadata"].(map[string]any)
	if err := stringField(meta, &o.Name, line, "metadata.name"); err != nil {
		return nil, err
	}
	if err := stringField(meta, &o.Namespace, line, "metadata.namespace"); err != nil {
		return nil, err
	}
	if gen, ok := meta["generateName"].(string); ok && o.Name == "" && gen != "" {
		// kubectl create makes the name; until then the object is named
		// by its prefix, wherever a name is printed (Generated).
		o.Name = gen + GeneratedSuffix
		meta["name"] = o.Name
	}
	if o.Kind != "List" && !strings.HasSuffix(o.Kind, "List") && o.Name == "" {
		return nil, fmt.Errorf("%d: %s has no metadata.name", line, o.Kind)
	}
	return o, nil
}

// stringField sets *dst from m[key] when it is present; key may be dotted
// only for the message.
func stringField(m map[string]any, dst *string, line int, name string) error {
	key := name[strings.LastIndex(name, ".")+1:]
	v, ok := m[key]
	if !ok || v == nil {
		return nil
	}
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("%d: %s is not a string", line, name)
	}
	*dst = s
	return nil
}

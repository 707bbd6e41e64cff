package load

import (
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	yaml "sigs.k8s.io/yaml/goyaml.v3"

	"github.com/drvcheck/drvcheck/internal/load/yamlconv"
)

// decodeTyped reads document doc, parsed into n, straight into the API
// types typed names (Options.Typed): the document's object, or a List's
// items. It returns nil, and the document is read the plain way, when one
// of them is not of such a type, is named only by generateName or not at
// all, or holds anything yamlconv.Typed leaves to the plain way.
func decodeTyped(src *Source, doc int, n *yaml.Node, typed func(apiVersion, kind string) reflect.Type) []*Object {
	if typed == nil || len(n.Content) == 0 || n.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	root := n.Content[0]
	apiVersion, kind, ok := header(root, "", "")
	if !ok {
		return nil
	}
	dec := yamlconv.NewTyped()
	var out []*Object
	if kind == "List" || strings.HasSuffix(kind, "List") {
		out = listTyped(dec, root, apiVersion, kind, typed)
	} else if o := oneTyped(dec, root, 0, apiVersion, kind, typed); o != nil {
		out = []*Object{o}
	}
	if out == nil {
		return nil
	}
	lines := dec.Lines()
	for _, o := range out {
		o.Source, o.Doc, o.lines = src, doc, lines
	}
	return out
}

// listTyped decodes a List's items (see isList and listItems): those of
// "kind: List" name their own kind, those of a typed list (NodeList) may
// leave it to the list's.
func listTyped(dec *yamlconv.Typed, root *yaml.Node, apiVersion, kind string, typed func(apiVersion, kind string) reflect.Type) []*Object {
	items, ok := dec.ListItems(root)
	if !ok || !textMeta(root) {
		return nil
	}
	kind = strings.TrimSuffix(kind, "List")
	if kind == "" {
		apiVersion = ""
	}
	out := make([]*Object, 0, len(items))
	for i, it := range items {
		if it.Kind != yaml.MappingNode {
			return nil
		}
		av, k, ok := header(it, apiVersion, kind)
		if !ok {
			return nil
		}
		o := oneTyped(dec, it, yamlconv.ItemRoot(i), av, k, typed)
		if o == nil {
			return nil
		}
		o.Item, o.root = i, yamlconv.ItemRoot(i)
		out = append(out, o)
	}
	return out
}

// oneTyped decodes the object at n, at path in its document.
func oneTyped(dec *yamlconv.Typed, n *yaml.Node, path uint64, apiVersion, kind string, typed func(apiVersion, kind string) reflect.Type) *Object {
	t := typed(apiVersion, kind)
	if t == nil {
		return nil
	}
	dst := reflect.New(t)
	if !dec.Decode(n, path, dst) {
		return nil
	}
	meta, ok := dst.Interface().(metav1.Object)
	if !ok || meta.GetName() == "" || meta.GetGenerateName() != "" {
		return nil
	}
	return &Object{
		APIVersion: apiVersion, Kind: kind, Namespace: meta.GetNamespace(), Name: meta.GetName(),
		Decoded: dst.Interface(), Line: n.Line, Item: -1,
	}
}

// header reads a mapping's apiVersion and kind, each defaulting to the
// one given; false when either is there more than once or is not text.
func header(n *yaml.Node, apiVersion, kind string) (string, string, bool) {
	var seenVersion, seenKind bool
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var dst *string
		var seen *bool
		switch k.Value {
		case "apiVersion":
			dst, seen = &apiVersion, &seenVersion
		case "kind":
			dst, seen = &kind, &seenKind
		default:
			continue
		}
		if *seen || v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" {
			return "", "", false
		}
		*seen, *dst = true, v.Value
	}
	return apiVersion, kind, true
}

// textMeta says whether a List's own metadata.name and namespace, when
// there, are text or null, as newObject requires of every document.
func textMeta(root *yaml.Node) bool {
	meta := field(root, "metadata")
	if meta == nil || meta.Kind != yaml.MappingNode {
		return true // newObject reads no name from it
	}
	for _, key := range []string{"name", "namespace"} {
		if v := field(meta, key); v != nil && !yamlconv.Text(v) {
			return false
		}
	}
	return true
}

// field is the value of a mapping's key, or nil.
func field(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

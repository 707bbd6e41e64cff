package yamlconv

import (
	"encoding/json"
	"math"
	"reflect"

	yaml "sigs.k8s.io/yaml/goyaml.v3"
)

// Typed decodes the objects of one document straight into their API
// types, and indexes the document's lines: what Document and then
// apimachinery's FromUnstructured give, without the plain values between
// them. A fleet's objects are read once instead of three times (YAML tree,
// plain values, typed object; issue 40).
//
// It follows FromUnstructured (k8s.io/apimachinery pkg/runtime
// converter.go, fromUnstructured and the functions it calls) and takes the
// same path for a type with its own JSON decoding (resource.Quantity,
// IntOrString, metav1.Time): that type's UnmarshalJSON of the value's
// JSON.
type Typed struct{ d decoder }

// NewTyped starts a document.
func NewTyped() *Typed { return &Typed{d: decoder{c: converter{budget: maxAliased}}} }

// Decode decodes n, the mapping at path (0 for the document's root, a
// List's item at ItemRoot), into dst, a pointer to a zero API type. It
// returns false, and dst must be thrown away, when n holds anything this
// path does not take exactly as Document and FromUnstructured do: an
// alias or a merge key, a repeated key, a number beyond 32 bits, a value
// of a kind its field refuses, a type of a shape it does not know. The
// caller then reads the document Document's way, which words the error or
// makes the check this one skips.
func (x *Typed) Decode(n *yaml.Node, path uint64, dst reflect.Value) bool {
	return n.Kind == yaml.MappingNode && x.d.into(n, path, dst.Elem()) && !x.d.c.wide
}

// ListItems checks a List document's root mapping as Document would and
// indexes its lines, all but its items', which Decode reads at ItemRoot:
// it returns the items, or false when the root has no list of them or
// holds what Decode would leave to Document.
func (x *Typed) ListItems(root *yaml.Node) ([]*yaml.Node, bool) {
	if root.Kind != yaml.MappingNode || !uniqueKeys(root) {
		return nil, false
	}
	var items *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		h := keyHash(0, k.Value)
		x.d.c.lines.add(h, k.Line)
		if k.Value == "items" {
			items = v
			continue
		}
		if _, err := x.d.c.value(v, h); err != nil {
			return nil, false
		}
	}
	if items == nil || items.Kind != yaml.SequenceNode {
		return nil, false
	}
	for i, it := range items.Content {
		x.d.c.lines.add(ItemRoot(i), it.Line)
	}
	return items.Content, true
}

// Text says whether n is a value Document reads as text or null: what a
// List's own metadata.name and namespace must be (load's newObject).
func Text(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode {
		return false
	}
	v, err := scalar(n)
	if err != nil {
		return false
	}
	_, isString := v.(string)
	return v == nil || isString
}

// Lines is the line index of every field decoded so far.
func (x *Typed) Lines() Lines {
	x.d.c.lines.sort()
	return x.d.c.lines
}

// decoder holds Document's converter, for the lines, the scalars and the
// plain values of fields the type does not have.
type decoder struct{ c converter }

// into decodes n, the value at path, into dv, a zero value of its type.
func (d *decoder) into(n *yaml.Node, path uint64, dv reflect.Value) bool {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return true // FromUnstructured sets the zero value, which dv holds
	}
	t := infoOf(dv.Type())
	switch {
	case t.simple:
		return d.simple(n, dv)
	case t.unmarshaler || t.kind == reflect.Interface:
		return d.plainInto(n, path, dv, t)
	}
	switch t.kind {
	case reflect.Pointer:
		p := reflect.New(dv.Type().Elem())
		if !d.into(n, path, p.Elem()) {
			return false
		}
		dv.Set(p)
		return true
	case reflect.Struct:
		return t.fields != nil && n.Kind == yaml.MappingNode && d.structInto(n, path, dv, t)
	case reflect.Map:
		return t.stringKey && n.Kind == yaml.MappingNode && d.mapInto(n, path, dv)
	case reflect.Slice:
		return d.sliceInto(n, path, dv)
	}
	return false
}

// simple sets a string, bool or number field from a scalar as
// fromUnstructured does: no conversion between strings, bools and
// numbers, and a float into an integer only when it is whole.
func (d *decoder) simple(n *yaml.Node, dv reflect.Value) bool {
	if n.Kind != yaml.ScalarNode {
		return false
	}
	v, err := scalar(n)
	if err != nil || beyond32(v) {
		return false
	}
	sv := reflect.ValueOf(v)
	st, dt := sv.Type(), dv.Type()
	switch {
	case st.AssignableTo(dt):
		dv.Set(sv)
		return true
	case !st.ConvertibleTo(dt):
		return false
	}
	switch st.Kind() {
	case reflect.String, reflect.Bool:
		if st.Kind() != dt.Kind() {
			return false
		}
	case reflect.Int64:
		if !isNumber(dt.Kind()) {
			return false
		}
	case reflect.Float64:
		f := sv.Float()
		if !isFloat(dt.Kind()) && !(isNumber(dt.Kind()) && f == math.Trunc(f)) {
			return false
		}
	}
	dv.Set(sv.Convert(dt))
	return true
}

// plainInto hands a type with its own JSON decoding, or an interface, the
// plain value of n, as fromUnstructured does.
func (d *decoder) plainInto(n *yaml.Node, path uint64, dv reflect.Value, t *typeInfo) bool {
	v, err := d.c.value(n, path)
	if err != nil || v == nil {
		return err == nil
	}
	if t.kind == reflect.Interface {
		sv := reflect.ValueOf(v)
		if !sv.Type().AssignableTo(dv.Type()) {
			return false // an interface with methods: no plain value has them
		}
		dv.Set(sv)
		return true
	}
	return t.entry.FromUnstructured(reflect.ValueOf(v), dv) == nil
}

func (d *decoder) structInto(n *yaml.Node, path uint64, dv reflect.Value, t *typeInfo) bool {
	if !uniqueKeys(n) {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		h := keyHash(path, k.Value)
		d.c.lines.add(h, k.Line)
		at, known := t.fields[k.Value]
		if !known {
			// Not a field of the type: FromUnstructured skips it, but
			// Document reads it (its lines, its errors, its numbers).
			if _, err := d.c.value(v, h); err != nil {
				return false
			}
			continue
		}
		for _, index := range at {
			if index == nil || !d.into(v, h, dv.FieldByIndex(index)) {
				return false
			}
		}
	}
	return true
}

func (d *decoder) mapInto(n *yaml.Node, path uint64, dv reflect.Value) bool {
	if !uniqueKeys(n) {
		return false
	}
	dt := dv.Type()
	m := reflect.MakeMapWithSize(dt, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		h := keyHash(path, k.Value)
		d.c.lines.add(h, k.Line)
		ev := reflect.New(dt.Elem()).Elem()
		if !d.into(v, h, ev) {
			return false
		}
		m.SetMapIndex(reflect.ValueOf(k.Value).Convert(dt.Key()), ev)
	}
	dv.Set(m)
	return true
}

func (d *decoder) sliceInto(n *yaml.Node, path uint64, dv reflect.Value) bool {
	dt := dv.Type()
	if n.Kind == yaml.ScalarNode && dt.Elem().Kind() == reflect.Uint8 {
		return d.bytesInto(n, dv)
	}
	if n.Kind != yaml.SequenceNode {
		return false
	}
	s := reflect.MakeSlice(dt, len(n.Content), len(n.Content))
	for i, item := range n.Content {
		h := indexHash(path, i)
		d.c.lines.add(h, item.Line)
		if !d.into(item, h, s.Index(i)) {
			return false
		}
	}
	dv.Set(s)
	return true
}

// bytesInto reads base64 text into a []byte, as JSON and
// FromUnstructured do.
func (d *decoder) bytesInto(n *yaml.Node, dv reflect.Value) bool {
	v, err := scalar(n)
	s, ok := v.(string)
	if err != nil || !ok {
		return false
	}
	if s == "" {
		dv.Set(reflect.MakeSlice(dv.Type(), 0, 0))
		return true
	}
	quoted, err := json.Marshal(s)
	var b []byte
	if err != nil || json.Unmarshal(quoted, &b) != nil {
		return false
	}
	dv.SetBytes(b)
	return true
}

// uniqueKeys says whether n's keys are all plain scalars, none of them a
// merge key ("<<") and none twice; Document refuses a repeated key and
// expands merges, which this path leaves to it.
func uniqueKeys(n *yaml.Node) bool {
	pairs := len(n.Content) / 2
	var seen map[string]struct{}
	if pairs > 16 {
		seen = make(map[string]struct{}, pairs)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" || n.Content[i+1].Kind == yaml.AliasNode {
			return false
		}
		if seen != nil {
			if _, dup := seen[k.Value]; dup {
				return false
			}
			seen[k.Value] = struct{}{}
			continue
		}
		for j := 0; j < i; j += 2 {
			if n.Content[j].Value == k.Value {
				return false
			}
		}
	}
	return true
}

func isNumber(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Uint64 || isFloat(k)
}

func isFloat(k reflect.Kind) bool { return k == reflect.Float32 || k == reflect.Float64 }

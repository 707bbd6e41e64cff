package yamlconv

import (
	"fmt"
	"reflect"
	"testing"

	yaml "sigs.k8s.io/yaml/goyaml.v3"
)

type Inner struct {
	Name string `json:"name"`
}

type plainShape struct {
	Inner          // embedded without a tag: read from the same mapping
	Count  int32   `json:"count"`
	Ratio  float64 `json:"ratio"`
	On     *bool   `json:"on"`
	Tags   map[string]string
	Items  []Inner        `json:"items"`
	Any    any            `json:"any"`
	Data   []byte         `json:"data"`
	hidden string         //nolint:unused // a field reflection may not set
	Named  fmt.Stringer   `json:"named"`
	Ptr    *Inner         `json:"ptr,omitempty"`
	Nested map[string]any `json:"nested"`
}

type pointerEmbed struct {
	*Inner
}

func decodeInto(t *testing.T, doc string, dst any) (Lines, bool) {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
		t.Fatal(err)
	}
	x := NewTyped()
	ok := x.Decode(n.Content[0], 0, reflect.ValueOf(dst))
	return x.Lines(), ok
}

// What the direct path takes, it takes whole; what it does not know how
// to take as FromUnstructured would, it refuses instead of guessing.
func TestTypedDecodesWhatItKnowsAndRefusesTheRest(t *testing.T) {
	var got plainShape
	lines, ok := decodeInto(t, `name: n
count: 3.0
ratio: 2
on: true
Tags: {a: "1"}
items: [{name: x}, {name: y}]
any: {k: [1, two]}
data: aGk=
ptr: {}
nested: {a: {b: c}}
`, &got)
	if !ok {
		t.Fatal("a plain document was refused")
	}
	on := true
	want := plainShape{Inner: Inner{Name: "n"}, Count: 3, Ratio: 2, On: &on, Tags: map[string]string{"a": "1"},
		Items: []Inner{{Name: "x"}, {Name: "y"}}, Any: map[string]any{"k": []any{int64(1), "two"}},
		Data: []byte("hi"), Ptr: &Inner{}, Nested: map[string]any{"a": map[string]any{"b": "c"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if l := lines.Line(0, []any{"items", 1, "name"}, 0); l != 6 {
		t.Errorf("line of items[1].name = %d, want 6", l)
	}
	for doc, why := range map[string]string{
		"count: 1.5\n":           "a fraction into an integer",
		"count: \"3\"\n":         "text into a number",
		"name: 3\n":              "a number into text",
		"count: 4294967296\n":    "a number beyond 32 bits",
		"named: x\n":             "an interface with methods",
		"hidden: x\n":            "an unexported field",
		"name: a\nname: b\n":     "a key twice",
		"a: &x 1\ncount: *x\n":   "an alias",
		"<<: {name: a}\n":        "a merge key",
		"items: {name: x}\n":     "a mapping into a list",
		"Tags: [a]\n":            "a list into a map",
		"extra: !!bool maybe\n":  "a bad value in a field the type lacks",
		"any: {a: 1, a: 2}\n":    "a key twice in a plain value",
		"ptr: [1]\n":             "a list into a struct",
		"on: yes please\n":       "text into a bool",
		"extra: 99999999999\n":   "a wide number anywhere in the document",
		"items: [{name: [x]}]\n": "a list into text, deeper",
	} {
		var x plainShape
		if _, ok := decodeInto(t, doc, &x); ok {
			t.Errorf("%q (%s) was taken", doc, why)
		}
	}
	var p pointerEmbed
	if _, ok := decodeInto(t, "name: n\n", &p); ok {
		t.Error("an embedded pointer was taken")
	}
}

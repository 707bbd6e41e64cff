package policy

import (
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// The converter must give exactly what OPA's own conversion gives, shared
// subtrees included.
func TestConverterAgreesWithOPA(t *testing.T) {
	shared := map[string]any{"reasons": map[string]any{"node(s) were unschedulable": 3}, "message": "0/3 nodes match"}
	path := []any{"spec", "template", 0}
	doc := map[string]any{
		"version": 1, "mode": "files", "ok": true, "none": nil, "ratio": 0.25, "big": int64(1) << 40, "small": int32(-7),
		"workloads": []any{
			map[string]any{"placement": shared, "field": path, "images": []any{}},
			map[string]any{"placement": shared, "field": path, "images": []any{"a", "b"}},
		},
	}
	want, err := ast.InterfaceToValue(doc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := newConverter().value(doc)
	if err != nil {
		t.Fatal(err)
	}
	if got.Compare(want) != 0 {
		t.Fatalf("converter gave\n%v\nwant\n%v", got, want)
	}
	chunked, err := NewInput(doc)
	if err != nil {
		t.Fatal(err)
	}
	if chunked.obj.Compare(want) != 0 {
		t.Fatalf("NewInput gave\n%v\nwant\n%v", chunked.obj, want)
	}
	// A part added later lands beside the rest, as if converted at once.
	later, err := NewInput(map[string]any{"version": 1, "mode": "files"})
	if err == nil {
		err = later.Add(map[string]any{"ok": true, "none": nil, "ratio": 0.25, "big": int64(1) << 40, "small": int32(-7), "workloads": doc["workloads"]})
	}
	if err != nil {
		t.Fatal(err)
	}
	if later.obj.Compare(want) != 0 {
		t.Fatalf("NewInput then Add gave\n%v\nwant\n%v", later.obj, want)
	}
}

// Maps and lists built apart but equal become one OPA value; values that
// differ only in type, or in where one string ends, stay apart, and each
// is what OPA's own conversion gives.
func TestConverterSharesEqualValues(t *testing.T) {
	entry := func(field string, floor any) map[string]any {
		return map[string]any{"placement": map[string]any{"total": 3, "field": field, "reasons": map[string]any{"taint": 1}}, "cuda": map[string]any{"floor": floor, "older": []any{}}}
	}
	a, b := entry("/spec", 525), entry("/spec", 525)
	apart := []map[string]any{entry("/spec", "525"), entry("/spec", 525.5), entry("/spe", 525), {"ab": "c"}, {"a": "bc"}, {"a": []any{"b", "c"}}, {"a": []any{"bc"}}}
	c := newConverter()
	va, err := c.value(a)
	if err != nil {
		t.Fatal(err)
	}
	vb, _ := c.value(b)
	if va != vb {
		t.Fatal("two equal maps converted apart")
	}
	seen := []ast.Value{va}
	for _, m := range apart {
		v, err := c.value(m)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := ast.InterfaceToValue(m)
		if v.Compare(want) != 0 {
			t.Fatalf("converter gave %v, want %v", v, want)
		}
		for _, s := range seen {
			if v == s || v.Compare(s) == 0 {
				t.Fatalf("%v shares a value with %v", v, s)
			}
		}
		seen = append(seen, v)
	}
}

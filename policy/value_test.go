package policy

import (
	"fmt"
	"math/rand/v2"
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
	want := agrees(t, "the document", doc)
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

// Maps nested in maps, large and small, convert as OPA converts them: the
// converter keeps the keys and values of every map being converted on
// stacks that its nested maps grow and pop, so a nested map with many keys
// moves the stacks while its parent still reads them.
func TestConverterAgreesOnNestedMaps(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 7))
	for i := range 60 {
		agrees(t, fmt.Sprint("document ", i), randomMap(r, 4))
	}
}

// agrees converts doc with a new converter and with OPA, fails the test
// unless the two agree, and returns OPA's value.
func agrees(t *testing.T, name string, doc any) ast.Value {
	t.Helper()
	want, err := ast.InterfaceToValue(doc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := newConverter().value(doc)
	if err != nil {
		t.Fatal(err)
	}
	if got.Compare(want) != 0 {
		t.Fatalf("%s: converter gave\n%v\nwant\n%v", name, got, want)
	}
	return want
}

// randomMap is a map of up to 2*maxShared keys (past the size shared by
// content), whose values are scalars, lists and maps down to depth.
func randomMap(r *rand.Rand, depth int) map[string]any {
	m := map[string]any{}
	for n := r.IntN(2 * maxShared); len(m) < n; {
		m[fmt.Sprintf("k%d", r.IntN(100))] = randomValue(r, depth-1)
	}
	return m
}

func randomValue(r *rand.Rand, depth int) any {
	kind := r.IntN(6)
	if depth <= 0 {
		kind %= 4
	}
	switch kind {
	case 0:
		return r.IntN(3) // few values, so that equal maps occur
	case 1:
		return fmt.Sprint("v", r.IntN(3))
	case 2:
		return r.IntN(2) == 0
	case 3:
		return nil
	case 4:
		list := make([]any, r.IntN(4))
		for i := range list {
			list[i] = randomValue(r, depth-1)
		}
		return list
	}
	return randomMap(r, depth)
}

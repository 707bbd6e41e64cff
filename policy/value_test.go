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

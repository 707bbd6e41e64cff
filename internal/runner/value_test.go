package runner

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
	chunked, err := toValue(doc)
	if err != nil {
		t.Fatal(err)
	}
	if chunked.Compare(want) != 0 {
		t.Fatalf("toValue gave\n%v\nwant\n%v", chunked, want)
	}
}

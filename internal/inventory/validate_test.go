package inventory

import (
	"reflect"
	"testing"
)

// The API server's field paths, read back as the path FieldLine follows:
// a bracket holds an index or a map key, and a key may hold dots.
func TestFieldPathReadsIndexesAndKeys(t *testing.T) {
	for in, want := range map[string][]any{
		"spec.replicas": {"spec", "replicas"},
		"spec.affinity.nodeSelectorTerms[0].matchExpressions[1].operator": {"spec", "affinity", "nodeSelectorTerms", 0, "matchExpressions", 1, "operator"},
		"spec.containers[0].resources.limits[nvidia.com/gpu]":             {"spec", "containers", 0, "resources", "limits", "nvidia.com/gpu"},
		"a[1][2].b": {"a", 1, 2, "b"},
	} {
		if got := fieldPath(in); !reflect.DeepEqual(got, want) {
			t.Errorf("fieldPath(%q) = %v, want %v", in, got, want)
		}
	}
}

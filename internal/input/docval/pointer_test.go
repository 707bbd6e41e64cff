package docval

import "testing"

func TestPointer(t *testing.T) {
	cases := []struct {
		path []any
		want string
	}{
		{nil, ""},
		{[]any{"spec", "template", "spec", "containers", 1, "image"}, "/spec/template/spec/containers/1/image"},
		{[]any{"metadata", "labels", "nvidia.com/gpu.present"}, "/metadata/labels/nvidia.com~1gpu.present"},
		{[]any{"a~b"}, "/a~0b"},
	}
	for _, c := range cases {
		if got := Pointer(c.path); got != c.want {
			t.Errorf("Pointer(%v) = %q, want %q", c.path, got, c.want)
		}
	}
}

package object

import "testing"

func TestString(t *testing.T) {
	cases := []struct {
		ref  Ref
		want string
	}{
		{Ref{Kind: "Node", Name: "lab-node-3"}, "Node/lab-node-3"},
		{Ref{Kind: "Deployment", Namespace: "gpu-drv", Name: "trainer"}, "Deployment/gpu-drv/trainer"},
	}
	for _, c := range cases {
		if got := c.ref.String(); got != c.want {
			t.Errorf("%#v.String() = %q, want %q", c.ref, got, c.want)
		}
	}
}

func TestCompare(t *testing.T) {
	a := Ref{Kind: "Deployment", Namespace: "a", Name: "z"}
	b := Ref{Kind: "Deployment", Namespace: "b", Name: "a"}
	c := Ref{Kind: "Node", Name: "a"}
	if Compare(a, b) >= 0 || Compare(b, c) >= 0 || Compare(c, a) <= 0 || Compare(a, a) != 0 {
		t.Errorf("Compare does not order kind, namespace, name: %d %d %d %d", Compare(a, b), Compare(b, c), Compare(c, a), Compare(a, a))
	}
}

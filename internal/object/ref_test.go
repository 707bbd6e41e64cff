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

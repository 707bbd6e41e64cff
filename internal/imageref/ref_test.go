package imageref

import "testing"

// A reference read keeps its repository as written and its tag or digest
// apart; one name refuses, one that has no tag says so.
func TestParse(t *testing.T) {
	digest := "sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, c := range []struct {
		in   string
		want Ref
	}{
		{"nvcr.io/nvidia/driver:550-5.15.0-1-generic-ubuntu22.04", Ref{Repository: "nvcr.io/nvidia/driver", Tag: "550-5.15.0-1-generic-ubuntu22.04"}},
		{"localhost:5000/driver:550-ubuntu22.04", Ref{Repository: "localhost:5000/driver", Tag: "550-ubuntu22.04"}},
		{"nvcr.io/nvidia/driver@" + digest, Ref{Repository: "nvcr.io/nvidia/driver", Digest: digest}},
		{"driver:550-ubuntu22.04", Ref{Repository: "driver", Tag: "550-ubuntu22.04"}},
		{"nvcr.io/nvidia/gpu-operator", Ref{Repository: "nvcr.io/nvidia/gpu-operator"}},
		{"localhost:5000/gpu-operator", Ref{Repository: "localhost:5000/gpu-operator"}},
		{"nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04@" + digest, Ref{Repository: "nvcr.io/nvidia/cuda", Tag: "12.4.1-base-ubuntu22.04", Digest: digest}},
	} {
		got, err := Parse(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
		if err == nil && got.String() != c.in {
			t.Errorf("Parse(%q).String() = %q", c.in, got.String())
		}
	}
	for _, bad := range []string{"", "nvcr.io/nvidia/driver:550 x", "nvcr.io/NVIDIA/driver:550", "nvcr.io/nvidia/driver@sha256:12"} {
		if r, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = %+v, want an error", bad, r)
		}
	}
}

func TestDriverTag(t *testing.T) {
	if got := DriverTag("550", "5.15.0-1-generic", "ubuntu22.04"); got != "550-5.15.0-1-generic-ubuntu22.04" {
		t.Errorf("precompiled: %q", got)
	}
	if got := DriverTag("550.90.07", "", "rhel9.4"); got != "550.90.07-rhel9.4" {
		t.Errorf("not precompiled: %q", got)
	}
}

func TestSplitDriverTagInvertsDriverTag(t *testing.T) {
	for _, parts := range [][3]string{
		{"550", "5.15.0-107-generic", "ubuntu22.04"},
		{"535", "6.8.0-1015-aws", "ubuntu24.04"},
		{"570", "5.14.0-427.13.1.el9_4.x86_64", "rhel9.4"},
	} {
		b, k, o, ok := SplitDriverTag(DriverTag(parts[0], parts[1], parts[2]))
		if !ok || b != parts[0] || k != parts[1] || o != parts[2] {
			t.Errorf("SplitDriverTag(DriverTag(%q)) = %q %q %q %v", parts, b, k, o, ok)
		}
	}
	for _, bad := range []string{"", "550", "550-ubuntu22.04", "x550-k-ubuntu22.04", "-k-ubuntu22.04", "550-k-"} {
		if _, _, _, ok := SplitDriverTag(bad); ok {
			t.Errorf("SplitDriverTag(%q) ok", bad)
		}
	}
	if !ValidTag("550-5.15.0-119-generic-ubuntu22.04") || ValidTag("-550") || ValidTag("550 x") {
		t.Error("ValidTag")
	}
}

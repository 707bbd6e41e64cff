package cuda

import (
	"encoding/json"
	"strings"
	"testing"
)

func mustVersion(t *testing.T, s string) Version {
	t.Helper()
	v, err := ParseVersion(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestFloors(t *testing.T) {
	cases := []struct {
		cuda          string
		minor, strict int // 0: unknown
	}{
		{"11.0.1", 450, 450}, // older than every toolkit row: the major's floor
		{"11.5.2", 450, 495}, // 11.5.0's row covers all of 11.5
		{"11.8.0", 450, 520},
		{"12.0.0", 525, 525},
		{"12.4.1", 525, 550},
		{"12.8.1", 525, 570},
		{"12.9", 525, 575},
		{"13.0.0", 580, 580},
		{"13.1.0", 580, 590},
		{"13.2.0", 580, 590}, // newer than the tables: a lower bound
		{"14.0.0", 580, 590},
		{"10.2.89", 0, 0},
	}
	for _, c := range cases {
		v := mustVersion(t, c.cuda)
		for _, m := range []struct {
			compat Compat
			want   int
		}{{Minor, c.minor}, {Strict, c.strict}} {
			got, ok := m.compat.Floor(v)
			if !ok {
				got = 0
			}
			if got != m.want {
				t.Errorf("%s floor of CUDA %s = %d (ok %v), want %d", m.compat, c.cuda, got, ok, m.want)
			}
		}
	}
}

func TestImageFloor(t *testing.T) {
	user := Table{}
	user.add("nvcr.io/nvidia/pytorch", "25.03", Entry{CUDA: Version{12, 8, 1}, Source: "--data"})
	user.add("nvcr.io/nvidia/tritonserver", "24.07", Entry{CUDA: Version{12, 4, 0}, Source: "--data"})
	cases := []struct {
		image         string
		minor, strict int
		source        string
	}{
		{"nvcr.io/nvidia/cuda:13.0.0-base-ubuntu24.04", 580, 580, "image tag"},
		{"nvidia/cuda:12.4.1-cudnn-devel-ubuntu22.04", 525, 550, "image tag"},
		{"nvcr.io/nvidia/cuda:12.8.1@sha256:abc", 525, 570, "image tag"},
		{"nvcr.io/nvidia/pytorch:25.12-py3", 580, 590, "rel-25-12"},
		{"nvcr.io/nvidia/tritonserver:24.10-py3", 525, 560, "rel-24-10"},
		{"nvcr.io/nvidia/tritonserver:24.07-py3", 525, 550, "--data"}, // data wins over the built-in row
		{"nvcr.io/nvidia/pytorch:25.03-py3", 525, 570, "--data"},
		{"nvcr.io/nvidia/pytorch:24.07-py3", 0, 0, ""},          // no sourced row
		{"localhost:5000/nvidia/cuda:12.0.0", 0, 0, ""},         // not NVIDIA's repository
		{"nvcr.io/nvidia/cuda@sha256:abc", 0, 0, ""},            // no tag
		{"nvcr.io/nvidia/cuda:latest", 0, 0, ""},                // no release in the tag
		{"nvcr.io/nvidia/cuda:10.2-base-ubuntu18.04", 0, 0, ""}, // older than the tables
	}
	for _, c := range cases {
		for _, m := range []struct {
			compat Compat
			want   int
		}{{Minor, c.minor}, {Strict, c.strict}} {
			f, ok := Policy{Compat: m.compat, Images: user}.ImageFloor(c.image)
			if !ok {
				f.Branch = 0
			}
			if f.Branch != m.want || ok && !strings.Contains(f.Source, c.source) {
				t.Errorf("%s %s: floor %d from %q (ok %v), want %d from %q", m.compat, c.image, f.Branch, f.Source, ok, m.want, c.source)
			}
		}
	}
}

func TestZeroPolicyUsesBuiltinTableAndMinor(t *testing.T) {
	f, ok := Policy{}.ImageFloor("nvcr.io/nvidia/pytorch:25.12-py3")
	if !ok || f.Branch != 580 || f.CUDA != (Version{13, 1, 0}) {
		t.Fatalf("got %+v %v, want CUDA 13.1.0 floor 580", f, ok)
	}
	if d := f.Describe(Minor); !strings.Contains(d, "CUDA 13.1.0") || !strings.Contains(d, "minor-version") {
		t.Fatalf("describe %q", d)
	}
}

func TestTableFromData(t *testing.T) {
	tab, err := TableFromData(map[string]any{"r.example/llm": map[string]any{"v3": "12.4"}})
	if err != nil {
		t.Fatal(err)
	}
	f, ok := Policy{Images: tab}.ImageFloor("r.example/llm:v3-cuda")
	if !ok || f.CUDA != (Version{12, 4, 0}) || f.Source != "--data" {
		t.Fatalf("got %+v %v", f, ok)
	}
	bad := []struct {
		doc  any
		want string
	}{
		{[]any{"x"}, "want an object of image repositories"},
		{map[string]any{"r": "12.4"}, `images["r"]: want an object`},
		{map[string]any{"r": map[string]any{"1": json.Number("12.10")}}, "must be quoted"},
		{map[string]any{"r": map[string]any{"1": "twelve"}}, `"twelve"`},
	}
	for _, b := range bad {
		if _, err := TableFromData(b.doc); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("TableFromData(%v) error %v, want it to contain %q", b.doc, err, b.want)
		}
	}
	if tab, err := TableFromData(nil); err != nil || len(tab) != 0 {
		t.Fatalf("nil data: %v %v", tab, err)
	}
}

func TestParseCompat(t *testing.T) {
	if c, err := ParseCompat(""); err != nil || c != Minor {
		t.Fatalf("empty: %v %v", c, err)
	}
	if c, err := ParseCompat("strict"); err != nil || c != Strict {
		t.Fatalf("strict: %v %v", c, err)
	}
	if _, err := ParseCompat("loose"); err == nil {
		t.Fatal("loose accepted")
	}
}

// The embedded tables are copies of the sourced reference tables; a lost
// row would silently lower a floor.
func TestEmbeddedTablesAreComplete(t *testing.T) {
	if len(minorFloors) != 3 || minorFloors[11] != 450 || minorFloors[12] != 525 || minorFloors[13] != 580 {
		t.Fatalf("minor floors %v", minorFloors)
	}
	if len(toolkitFloors) != 42 {
		t.Fatalf("%d toolkit rows, want 42", len(toolkitFloors))
	}
	for repo, rows := range builtinImages {
		for release, e := range rows {
			if !strings.HasPrefix(e.Source, "https://docs.nvidia.com/") {
				t.Errorf("%s:%s has no release-notes source: %q", repo, release, e.Source)
			}
		}
	}
}

package catalog

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/imageref"
)

func TestMatrixRowsAreTrimmedAndMadeIntoTags(t *testing.T) {
	rows, err := ParseMatrix("m.csv", []byte("\ufeffdriver_branch, kernel ,os_tag\r\n 550 , 5.15.0-119-generic ,ubuntu22.04\n\n535,5.15.0-107-generic,ubuntu22.04\n"))
	if err != nil {
		t.Fatal(err)
	}
	var tags []string
	for _, r := range rows {
		tags = append(tags, r.Tag())
	}
	if got := strings.Join(tags, " "); got != "550-5.15.0-119-generic-ubuntu22.04 535-5.15.0-107-generic-ubuntu22.04" {
		t.Fatalf("tags %q", got)
	}
	if rows[1].Line != 4 {
		t.Fatalf("second row on line %d, want 4", rows[1].Line)
	}
}

// A matrix of whole tags (any image, not only precompiled ones) and a
// precompiled row keyed on a full version (custom images are tagged so).
func TestMatrixOfTags(t *testing.T) {
	rows, err := ParseMatrix("t.csv", []byte("tag\n550.90.07-ubuntu22.04\n570.86.15-rhel9\n"))
	if err != nil || len(rows) != 2 || rows[0].Tag() != "550.90.07-ubuntu22.04" || rows[1].Line != 3 {
		t.Fatalf("rows %+v, %v", rows, err)
	}
	rows, err = ParseMatrix("m.csv", []byte("driver_branch,kernel,os_tag\n550.54.14,5.14.0-284.el9,rhcos4.15\n"))
	if err != nil || rows[0].Tag() != "550.54.14-5.14.0-284.el9-rhcos4.15" {
		t.Fatalf("rows %+v, %v", rows, err)
	}
}

func TestMalformedMatrixNamesTheLine(t *testing.T) {
	cases := map[string]struct{ in, want string }{
		"empty":        {"", "m.csv: empty file"},
		"wrong header": {"branch,kernel,os\n550,k,ubuntu22.04\n", `m.csv:1: header is "branch,kernel,os"`},
		"short row":    {"driver_branch,kernel,os_tag\n550,k,ubuntu22.04\n550,k\n", "m.csv:3: want 3 fields"},
		"long row":     {"driver_branch,kernel,os_tag\n550,k,ubuntu22.04,x\n", "m.csv:2: want 3 fields"},
		"empty field":  {"driver_branch,kernel,os_tag\n550,,ubuntu22.04\n", "m.csv:2: field kernel is empty"},
		"branch":       {"driver_branch,kernel,os_tag\nr550,k,ubuntu22.04\n", `m.csv:2: driver_branch "r550" is neither a branch such as 550 nor a driver version`},
		"tag header":   {"tag\n550.90.07-ubuntu22.04,x\n", `m.csv:2: want one field (tag), got 2`},
		"tag invalid":  {"tag\n550 90\n", `m.csv:2: tag "550 90" is not an image tag`},
		"quote":        {"driver_branch,kernel,os_tag\n550,\"k,ubuntu\n", "m.csv:2:"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ParseMatrix("m.csv", []byte(c.in))
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("error %v, want prefix %q", err, c.want)
			}
		})
	}
}

func TestReadMatrixMissingFile(t *testing.T) {
	_, err := ReadMatrix(nil, filepath.Join(t.TempDir(), "none.csv"))
	if err == nil || !strings.HasSuffix(err.Error(), "none.csv: no such file or directory") {
		t.Fatalf("error %v", err)
	}
}

func TestLabMatrix(t *testing.T) {
	rows, err := ReadMatrix(nil, "../../testdata/lab/support-matrix.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows, want the lab's 3 after step 3", len(rows))
	}
}

func TestCatalogIsAUnion(t *testing.T) {
	c := New()
	if c.Configured() {
		t.Fatal("empty catalog claims a source")
	}
	c.Add("a.csv", []string{"t1", "t2"})
	c.Add("reg/driver", []string{"t2", "t3", "t3"})
	if got := strings.Join(c.Check("t2").Sources, ","); got != "a.csv,reg/driver" {
		t.Fatalf("t2 in %q", got)
	}
	if v := c.Check("t3"); !v.Checked || !v.Present || len(v.Sources) != 1 {
		t.Fatalf("t3: %+v", v)
	}
	if v := c.Check("t4"); !v.Checked || v.Present {
		t.Fatalf("t4: %+v", v)
	}
	if v := c.Check(""); v.Checked {
		t.Fatalf("no tag is checked: %+v", v)
	}
	if c.Describe() != "a.csv, reg/driver" {
		t.Fatalf("describe %q", c.Describe())
	}
}

func TestCheckWithoutSourceKnowsNothing(t *testing.T) {
	if v := New().Check("550-5.15.0-119-generic-ubuntu22.04"); v.Checked || v.Present {
		t.Fatalf("verdict without a source: %+v", v)
	}
}

// A missing tag is blamed on the part no source has with the other two.
func TestBlame(t *testing.T) {
	c := New()
	c.Add("m.csv", []string{"550-5.15.0-119-generic-ubuntu22.04", "535-6.8.0-45-generic-ubuntu24.04"})
	cases := []struct{ branch, kernel, os, want string }{
		{"550", "5.15.0-120-generic", "ubuntu22.04", Kernel}, // a kernel bump
		{"570", "5.15.0-119-generic", "ubuntu22.04", Branch}, // a new branch
		{"550", "5.15.0-119-generic", "ubuntu24.04", OS},     // another OS
		{"580", "7.0.0-1-generic", "rhel10.0", Kernel},       // nothing close
	}
	for _, c2 := range cases {
		if got := c.Blame(c2.branch, c2.kernel, c2.os); got != c2.want {
			t.Errorf("Blame(%s, %s, %s) = %s, want %s", c2.branch, c2.kernel, c2.os, got, c2.want)
		}
	}
}

func FuzzParseMatrix(f *testing.F) {
	lab, err := os.ReadFile("../../testdata/lab/support-matrix.csv")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(lab)
	f.Add([]byte("driver_branch,kernel,os_tag\n550,\"a\nb\",x\n"))
	f.Add([]byte("tag\n550.90.07-ubuntu22.04\n"))
	f.Add([]byte("image\nnvcr.io/nvidia/cloud-native/nvidia-fs:2.17.5-ubuntu22.04\n"))
	f.Add([]byte("driver_branch,kernel,os_tag,arch\n580,6.8.0-1015-nvidia,ubuntu24.04,arm64\n"))
	f.Add([]byte("tag,arch\n595.91.07-ubuntu24.04,amd64\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := ParseMatrix("fuzz.csv", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.csv") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error not one line naming the file: %q", err)
			}
			return
		}
		for _, r := range rows {
			if r.Ref.Repository != "" { // a row of an image matrix: repository:tag
				if !imageref.ValidTag(r.Ref.Tag) || r.Ref.Digest != "" || r.FullTag != "" || r.Branch != "" {
					t.Fatalf("image row that is not repository:tag accepted: %+v", r)
				}
				continue
			}
			// A row of a tag matrix is one whole tag; any other, three fields.
			whole := r.FullTag != "" && r.Branch == "" && r.Kernel == "" && r.OSTag == ""
			if !whole && (r.FullTag != "" || r.Branch == "" || r.Kernel == "" || r.OSTag == "") {
				t.Fatalf("row with an empty field accepted: %+v", r)
			}
			if r.Arch != "" && !archName.MatchString(r.Arch) {
				t.Fatalf("row with an architecture that is none accepted: %+v", r)
			}
			if whole && !imageref.ValidTag(r.FullTag) {
				t.Fatalf("tag row that is not an image tag accepted: %+v", r)
			}
		}
	})
}

// A matrix of whole references counts only for each reference's
// repository, and a repository no source lists is not checked.
func TestImageMatrix(t *testing.T) {
	rows, err := ParseMatrix("images.csv", []byte("image\nnvcr.io/nvidia/cloud-native/nvidia-fs:2.17.5-ubuntu20.04\nnvcr.io/nvidia/driver:550.90.07-ubuntu22.04\n"))
	if err != nil || len(rows) != 2 {
		t.Fatalf("%v %+v", err, rows)
	}
	cat := New()
	cat.AddImages("images.csv", []imageref.Ref{rows[0].Ref, rows[1].Ref})
	for _, c := range []struct {
		repo, tag        string
		checked, present bool
	}{
		{"nvcr.io/nvidia/cloud-native/nvidia-fs", "2.17.5-ubuntu20.04", true, true},
		{"nvcr.io/nvidia/cloud-native/nvidia-fs", "2.17.5-ubuntu22.04", true, false},
		{"nvcr.io/nvidia/cloud-native/gdrdrv", "v2.4.1-ubuntu22.04", false, false},
	} {
		if v := cat.CheckImage(c.repo, c.tag); v.Checked != c.checked || v.Present != c.present {
			t.Errorf("%s:%s: %+v", c.repo, c.tag, v)
		}
	}
	if v := cat.Check("2.17.5-ubuntu20.04"); v.Present {
		t.Errorf("a whole reference counted as a driver tag: %+v", v)
	}
	for _, bad := range []string{"image\nnvidia-fs\n", "image\n:2.17.5\n", "image\nrepo/x:a b\n"} {
		if _, err := ParseMatrix("bad.csv", []byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "bad.csv:2: ") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// The newest kernel of a line of builds (branch, OS tag, Ubuntu series
// and flavour) by release, not by text: 5.15.0-119 is newer than -97.
func TestNewestKernel(t *testing.T) {
	cat := New()
	cat.Add("m.csv", []string{"550-5.15.0-97-generic-ubuntu22.04", "550-5.15.0-119-generic-ubuntu22.04", "550-5.15.0-1075-aws-ubuntu22.04",
		"535-5.15.0-130-generic-ubuntu22.04", "550-6.8.0-45-generic-ubuntu22.04", "latest"})
	for _, c := range []struct{ tag, want string }{
		{"550-5.15.0-120-generic-ubuntu22.04", "5.15.0-119-generic"},
		{"550-5.15.0-100-generic-ubuntu22.04", "5.15.0-119-generic"},
		{"550-5.15.0-1080-aws-ubuntu22.04", "5.15.0-1075-aws"},
		{"550-6.8.0-50-generic-ubuntu22.04", "6.8.0-45-generic"},
		{"550-5.15.0-120-generic-ubuntu24.04", ""},
		{"580-5.15.0-120-generic-ubuntu22.04", ""},
		{"550-5.14.0-427.13.1.el9_4.x86_64-rhel9.4", ""},
	} {
		if got := cat.NewestKernel(c.tag); got != c.want {
			t.Errorf("NewestKernel(%s) = %q, want %q", c.tag, got, c.want)
		}
	}
}

// A matrix may say each row's architecture: a tag's architectures are
// known only when every source that lists it says them.
func TestMatrixArchColumn(t *testing.T) {
	rows, err := ParseMatrix("arch.csv", []byte("driver_branch,kernel,os_tag,arch\n580,6.8.0-1015-nvidia,ubuntu22.04,amd64\n580,6.8.0-1015-nvidia,ubuntu24.04,amd64\n580,6.8.0-1015-nvidia,ubuntu24.04,arm64\n"))
	if err != nil || len(rows) != 3 || rows[2].Arch != "arm64" || rows[2].Tag() != "580-6.8.0-1015-nvidia-ubuntu24.04" {
		t.Fatalf("%v %+v", err, rows)
	}
	cat := New()
	cat.Add("arch.csv", []string{rows[0].Tag(), rows[1].Tag(), rows[2].Tag()})
	cat.addArches("arch.csv", rows)
	if got := cat.Arches("580-6.8.0-1015-nvidia-ubuntu22.04"); !slices.Equal(got, []string{"amd64"}) {
		t.Errorf("22.04: %v", got)
	}
	if got := cat.Arches("580-6.8.0-1015-nvidia-ubuntu24.04"); !slices.Equal(got, []string{"amd64", "arm64"}) {
		t.Errorf("24.04: %v", got)
	}
	// Another source lists the 22.04 tag and says nothing of its
	// architectures: nothing is known of them.
	cat.Add("tags.csv", []string{"580-6.8.0-1015-nvidia-ubuntu22.04"})
	if got := cat.Arches("580-6.8.0-1015-nvidia-ubuntu22.04"); got != nil {
		t.Errorf("a source without the column: %v", got)
	}
	tags, err := ParseMatrix("t.csv", []byte("tag,arch\n595.91.07-ubuntu24.04,arm64\n"))
	if err != nil || tags[0].Arch != "arm64" || tags[0].FullTag != "595.91.07-ubuntu24.04" {
		t.Errorf("tag,arch: %v %+v", err, tags)
	}
	for _, bad := range []string{"image,arch\nr/d:1\n", "tag,arch\n595-ubuntu24.04,ARM 64\n", "tag,arch\nx\n"} {
		if _, err := ParseMatrix("bad.csv", []byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

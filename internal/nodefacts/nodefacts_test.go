package nodefacts

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func nodeWith(labels map[string]string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: labels}}
}

func labLabels(major, minor, rev, kernel, osVersion string) map[string]string {
	return map[string]string{
		GPUPresent:                     "true",
		"nvidia.com/cuda.driver.major": major,
		"nvidia.com/cuda.driver.minor": minor,
		"nvidia.com/cuda.driver.rev":   rev,
		Kernel:                         kernel,
		OSID:                           "ubuntu",
		OSVersionID:                    osVersion,
	}
}

func TestLabTags(t *testing.T) {
	cases := []struct {
		labels      map[string]string
		tag, driver string
	}{
		{labLabels("550", "90", "07", "5.15.0-119-generic", "22.04"), "550-5.15.0-119-generic-ubuntu22.04", "550.90.07"},
		{labLabels("535", "183", "06", "5.15.0-107-generic", "22.04"), "535-5.15.0-107-generic-ubuntu22.04", "535.183.06"},
		{labLabels("550", "90", "07", "6.8.0-45-generic", "24.04"), "550-6.8.0-45-generic-ubuntu24.04", "550.90.07"},
		{labLabels("550", "90", "07", "6.8.0-52-generic", "24.04"), "550-6.8.0-52-generic-ubuntu24.04", "550.90.07"},
	}
	for _, c := range cases {
		f := lab(nodeWith(c.labels))
		if f.Tag != c.tag || f.DriverVersion != c.driver || !f.GPU || len(f.Problems) != 0 {
			t.Errorf("facts %+v, want tag %s driver %s", f, c.tag, c.driver)
		}
	}
}

func TestCurrentGFDKeysWinOverOlderOnes(t *testing.T) {
	l := labLabels("535", "183", "06", "5.15.0-107-generic", "22.04")
	l["nvidia.com/cuda.driver-version.major"] = "570"
	l["nvidia.com/cuda.driver-version.minor"] = "26"
	l["nvidia.com/cuda.driver-version.revision"] = ""
	f := lab(nodeWith(l))
	if f.Branch != "570" || f.Tag != "570-5.15.0-107-generic-ubuntu22.04" || f.DriverVersion != "570.26" {
		t.Fatalf("facts %+v", f)
	}
}

func TestMissingAndEmptyLabelsAreNamedAndNoTagIsGuessed(t *testing.T) {
	l := labLabels("550", "90", "07", "", "22.04")
	delete(l, OSID)
	delete(l, "nvidia.com/cuda.driver.major")
	f := lab(nodeWith(l))
	want := []Problem{
		{Label: "nvidia.com/cuda.driver-version.major (or nvidia.com/cuda.driver.major)", Reason: "missing", Key: "nvidia.com/cuda.driver-version.major"},
		{Label: Kernel, Reason: "empty", Key: Kernel},
		{Label: OSID, Reason: "missing", Key: OSID},
	}
	if !reflect.DeepEqual(f.Problems, want) {
		t.Fatalf("problems %+v, want %+v", f.Problems, want)
	}
	if f.Tag != "" {
		t.Fatalf("a tag was guessed: %q", f.Tag)
	}
}

func TestNodeWithoutLabels(t *testing.T) {
	f := lab(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "bare"}})
	if f.GPU || f.Tag != "" || len(f.Problems) != 4 {
		t.Fatalf("facts %+v", f)
	}
}

func TestUpgradeStateAndCordon(t *testing.T) {
	l := labLabels("550", "90", "07", "k", "22.04")
	l[UpgradeState] = "upgrade-done"
	n := nodeWith(l)
	n.Spec.Unschedulable = true
	f := lab(n)
	if f.UpgradeState != "upgrade-done" || !f.Unschedulable {
		t.Fatalf("facts %+v", f)
	}
}

func TestParseBranch(t *testing.T) {
	//nolint:gocritic // the spaces of " 525 " are the point: values are trimmed
	for in, want := range map[string]int{"580": 580, "580.65.06": 580, " 525 ": 525} {
		if got, err := ParseBranch(in); err != nil || got != want {
			t.Errorf("ParseBranch(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "r580", "latest", "0"} {
		if _, err := ParseBranch(in); err == nil {
			t.Errorf("ParseBranch(%q): no error", in)
		}
	}
}

func TestUpgradedKeepsTheNodeAndItsKeyGeneration(t *testing.T) {
	n := nodeWith(labLabels("535", "183", "06", "5.15.0-107-generic", "22.04"))
	u := Upgraded(n, "550.90")
	if f := lab(u); f.Tag != "550-5.15.0-107-generic-ubuntu22.04" || f.DriverVersion != "550.90" {
		t.Errorf("upgraded facts %+v", f)
	}
	if _, ok := u.Labels["nvidia.com/cuda.driver-version.major"]; ok {
		t.Error("Upgraded switched to the current keys on a node that carries the older ones")
	}
	if n.Labels["nvidia.com/cuda.driver.major"] != "535" || n.Labels["nvidia.com/cuda.driver.rev"] != "06" {
		t.Errorf("Upgraded changed the original node: %v", n.Labels)
	}
}

func TestSetReadsEveryNodeOnce(t *testing.T) {
	a := nodeWith(labLabels("550", "90", "07", "5.15.0-119-generic", "22.04"))
	b := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "cpu"}}
	s := All([]*corev1.Node{a, b})
	if f, ok := s.Get("n"); !ok || f.BranchNumber != 550 {
		t.Errorf("Get(n) = %+v, %v", f, ok)
	}
	if _, ok := s.Get("missing"); ok {
		t.Error("Get of an unknown node succeeded")
	}
	if s.GPU() != 1 || len(s.List()) != 2 {
		t.Errorf("GPU() = %d, List() has %d", s.GPU(), len(s.List()))
	}
}

// A label that cannot be part of an image tag (a padded value, a "/", ":",
// "@" or space) is a problem naming the label and its value, and no tag is
// made: printing " 550-…" or "550-5.15/x-…" would name an image that no
// registry can hold.
func TestLabelsThatCannotBeInATag(t *testing.T) {
	for key, value := range map[string]string{
		"nvidia.com/cuda.driver.major": " 550",
		Kernel:                         "5.15.0-119/generic",
		OSID:                           "ubuntu:latest",
		OSVersionID:                    "22.04 LTS",
	} {
		l := labLabels("550", "90", "07", "5.15.0-119-generic", "22.04")
		l[key] = value
		f := lab(nodeWith(l))
		if f.Tag != "" || len(f.Problems) != 1 || f.Problems[0].Key != key || !strings.Contains(f.Problems[0].Reason, strconv.Quote(value)) {
			t.Errorf("%s=%q: tag %q, problems %+v", key, value, f.Tag, f.Problems)
		}
	}
	l := labLabels("550", "90", "07", strings.Repeat("k", 120), "22.04")
	if f := lab(nodeWith(l)); f.Tag != "" || len(f.Problems) != 1 || !strings.Contains(f.Problems[0].Reason, "128 characters") {
		t.Errorf("a 140-character tag: %+v", f)
	}
}

// lab reads a node's facts as a run without the operator's configuration
// does: Of, then the lab's tag from the labels (Labels).
func lab(n *corev1.Node) Facts { return All([]*corev1.Node{n}).List()[0] }

// Kernel releases as Ubuntu's packages name them: NVIDIA's precompiled
// builds list flavours and series (gpu-driver-container 444814c
// .github/precompiled-matrix-config.json); GKE's and RHEL's are other forms.
func TestKernelParts(t *testing.T) {
	for _, c := range []struct{ kernel, series, flavour string }{
		{"5.15.0-119-generic", "5.15", "generic"},
		{"6.8.0-1015-aws", "6.8", "aws"},
		{"6.8.0-1017-azure-fde", "6.8", "azure-fde"},
		{"5.15.0-1075-gke", "5.15", "gke"},
		{"7.0.0-10-generic-64k", "7.0", "generic-64k"},
	} {
		s, f, ok := KernelParts(c.kernel)
		if !ok || s != c.series || f != c.flavour {
			t.Errorf("KernelParts(%q) = %q %q %v", c.kernel, s, f, ok)
		}
	}
	for _, k := range []string{"5.14.0-427.13.1.el9_4.x86_64", "6.12.72-cloud-amd64", "", "6.8.0-generic"} {
		if _, _, ok := KernelParts(k); ok {
			t.Errorf("KernelParts(%q) ok", k)
		}
	}
}

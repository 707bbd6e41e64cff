package nodefacts

import (
	"reflect"
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
		f := Of(nodeWith(c.labels))
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
	f := Of(nodeWith(l))
	if f.Branch != "570" || f.Tag != "570-5.15.0-107-generic-ubuntu22.04" || f.DriverVersion != "570.26" {
		t.Fatalf("facts %+v", f)
	}
}

func TestMissingAndEmptyLabelsAreNamedAndNoTagIsGuessed(t *testing.T) {
	l := labLabels("550", "90", "07", "", "22.04")
	delete(l, OSID)
	delete(l, "nvidia.com/cuda.driver.major")
	f := Of(nodeWith(l))
	want := []Problem{
		{Label: "nvidia.com/cuda.driver-version.major (or nvidia.com/cuda.driver.major)", Reason: "missing"},
		{Label: Kernel, Reason: "empty"},
		{Label: OSID, Reason: "missing"},
	}
	if !reflect.DeepEqual(f.Problems, want) {
		t.Fatalf("problems %+v, want %+v", f.Problems, want)
	}
	if f.Tag != "" {
		t.Fatalf("a tag was guessed: %q", f.Tag)
	}
}

func TestNodeWithoutLabels(t *testing.T) {
	f := Of(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "bare"}})
	if f.GPU || f.Tag != "" || len(f.Problems) != 4 {
		t.Fatalf("facts %+v", f)
	}
}

func TestUpgradeStateAndCordon(t *testing.T) {
	l := labLabels("550", "90", "07", "k", "22.04")
	l[UpgradeState] = "upgrade-done"
	n := nodeWith(l)
	n.Spec.Unschedulable = true
	f := Of(n)
	if f.UpgradeState != "upgrade-done" || !f.Unschedulable {
		t.Fatalf("facts %+v", f)
	}
	if Branch("550.90.07") != "550" || TagFor("550", "k", "ubuntu22.04") != "550-k-ubuntu22.04" {
		t.Fatal("Branch or TagFor")
	}
}

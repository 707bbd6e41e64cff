package fleet

import (
	"bufio"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/internal/operator"
	"github.com/drvcheck/drvcheck/policy"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// docs/input.md's table of clusters[] names every field of Cluster, and
// no other.
func TestClusterFieldsAreDocumented(t *testing.T) {
	f, err := os.Open("../../docs/input.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var documented []string
	in := false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "## "):
			in = strings.HasPrefix(l, "## `clusters[]`")
		case in && strings.HasPrefix(l, "| `"):
			documented = append(documented, strings.Trim(strings.Fields(l)[1], "`"))
		}
	}
	var fields []string
	typ := reflect.TypeFor[Cluster]()
	for i := range typ.NumField() {
		fields = append(fields, strings.Split(typ.Field(i).Tag.Get("json"), ",")[0])
	}
	slices.Sort(documented)
	slices.Sort(fields)
	if !slices.Equal(documented, fields) {
		t.Errorf("docs/input.md documents %v; Cluster has %v", documented, fields)
	}
}

func gpuNode(name, version string) *corev1.Node {
	parts := strings.Split(version, ".")
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		"nvidia.com/gpu.present":                  "true",
		"nvidia.com/cuda.driver-version.major":    parts[0],
		"nvidia.com/cuda.driver-version.minor":    parts[1],
		"nvidia.com/cuda.driver-version.revision": parts[2],
	}}}
}

// A cluster's driver branches and versions are its GPU nodes'; its
// release only when the inputs name it, and its stacks as declared.
func TestOf(t *testing.T) {
	facts := nodefacts.All([]*corev1.Node{gpuNode("a", "550.90.07"), gpuNode("b", "550.90.07"), gpuNode("c", "535.183.06"), {ObjectMeta: metav1.ObjectMeta{Name: "cpu"}}})
	c := Of("eu-1", facts, nil)
	if c.GPUNodes != 3 || !slices.Equal(c.DriverBranches, []string{"535", "550"}) || c.DriverVersions["550.90.07"] != 2 || c.OperatorVersion != "" || len(c.Stacks) != 0 {
		t.Errorf("%+v", c)
	}
	cp := operator.ItSelf(object.Ref{Kind: "ClusterPolicy", Name: "cluster-policy"})
	p := &operator.Profile{Version: operator.Version{Major: 26, Minor: 7}, VersionFrom: "the chart", ClusterPolicy: &cp,
		GPUClusters: []operator.Declared{operator.ItSelf(object.Ref{Kind: "GPUCluster", Name: "gpu-cluster"})}}
	if c := Of("eu-1", facts, p); c.OperatorVersion != "v26.7.0" || !slices.Equal(c.Stacks, []string{"ClusterPolicy", "GPUCluster"}) {
		t.Errorf("%+v", c)
	}
}

// Merging tags each finding with its cluster, by name or by file, and
// refuses one cluster twice.
func TestMerge(t *testing.T) {
	one := func(name string, rule string) Result {
		r := Result{Findings: []policy.Finding{{Rule: rule, Severity: policy.Error, Object: object.Ref{Kind: "Node", Name: "n"}}}, Summary: policy.Summary{Errors: 1, GPUNodes: 2}}
		if name != "" {
			r.Cluster = &Cluster{Name: name}
		}
		return r
	}
	m, err := Merge([]string{"a/x.json", "b/eu-1.json"}, []Result{one("us-1", "DRV001"), one("", "DRV002")})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Clusters) != 2 || m.Clusters[1].Name != "eu-1" || m.Findings[0].Cluster != "us-1" || m.Findings[1].Cluster != "eu-1" || m.Summary.Errors != 2 || m.Summary.GPUNodes != 4 {
		t.Errorf("%+v", m)
	}
	if _, err := Merge([]string{"a.json", "b.json"}, []Result{one("x", "DRV001"), one("x", "DRV001")}); err == nil || err.Error() != "cluster x is in both a.json and b.json (give each run --cluster-name)" {
		t.Errorf("one cluster twice: %v", err)
	}
}

// A kept report (the ConfigMap --report configmap= writes) is merged
// only when its run could judge: a failed run, a report left out for its
// size, or anything that is not drvcheck's are errors naming where.
func TestFromReport(t *testing.T) {
	good := `{"findings": [], "summary": {"errors": 0}, "cluster": {"name": ""}}`
	r, finished, err := FromReport(map[string]string{"exit-code": "0", "finished": "2026-12-04T03:17:00Z", "report.json": good}, "ConfigMap drvcheck/r", "eu-1")
	if err != nil || r.Cluster.Name != "eu-1" || finished.Day() != 4 {
		t.Fatalf("%+v %v %v", r, finished, err)
	}
	for data, want := range map[*map[string]string]string{
		{"exit-code": "2", "finished": "2026-12-04T03:17:00Z", "error": "cluster https://x unreachable\nmore"}:        "ConfigMap drvcheck/r: the run of 2026-12-04T03:17:00Z could not scan: cluster https://x unreachable",
		{"exit-code": "1", "finished": "2026-12-04T03:17:00Z", "omitted": "report.json (2000000 bytes) does not fit"}: "does not fit",
		{"exit-code": "0", "finished": "2026-12-04T03:17:00Z"}:                                                        "holds no report.json",
		{"exit-code": "0", "finished": "yesterday", "report.json": good}:                                              `finished "yesterday" is not a time`,
		{"exit-code": "0", "finished": "2026-12-04T03:17:00Z", "report.json": `{"runs": []}`}:                         "not a drvcheck result",
	} {
		if _, _, err := FromReport(*data, "ConfigMap drvcheck/r", "eu-1"); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want %q", *data, err, want)
		}
	}
}

func TestLabelsAndGroups(t *testing.T) {
	labels, err := ParseLabels([]string{"env=prod", "example.com/region=eu-1", "env=prod"})
	if err != nil || !reflect.DeepEqual(labels, map[string]string{"env": "prod", "example.com/region": "eu-1"}) {
		t.Fatalf("%v %v", labels, err)
	}
	for _, bad := range []string{"env", "Bad Key=x", "env=has space", "env=a"} {
		if _, err := ParseLabels([]string{"env=prod", bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	r := Result{Clusters: []Cluster{{Name: "eu-1", Labels: map[string]string{"env": "prod"}}, {Name: "stg", Labels: map[string]string{"env": "staging"}}}}
	if err := r.GroupBy("env"); err != nil || r.Clusters[0].Group != "env=prod" || r.Clusters[1].Group != "env=staging" {
		t.Errorf("%+v %v", r.Clusters, err)
	}
	if err := r.GroupBy(""); err != nil || r.Clusters[0].Group != "" {
		t.Errorf("no --group-by kept a group: %+v", r.Clusters)
	}
	if err := r.GroupBy("region"); err == nil || err.Error() != "--group-by region: cluster eu-1 has no label region (give its run --cluster-label region=VALUE)" {
		t.Errorf("%v", err)
	}
}

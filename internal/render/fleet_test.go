package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/fleet"
	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/policy"
)

// A fleet's result (report merge): one node name in two clusters is two
// findings every format tells apart, and the metrics count by cluster.
func TestFleetFormatsNameTheCluster(t *testing.T) {
	node := object.Ref{Kind: "Node", Name: "gpu-1"}
	r := Report{
		Findings: []policy.Finding{
			{Rule: "DRV001", Title: "missing-driver-image", Severity: policy.Error, Cluster: "eu-1", Object: node, Message: "no image"},
			{Rule: "DRV001", Title: "missing-driver-image", Severity: policy.Error, Cluster: "us-1", Object: node, Message: "no image"},
			{Rule: "DRV050", Title: "fleet-version-skew", Severity: policy.Warning, Object: object.Ref{Kind: "Fleet", Name: "fleet"}, Message: "skew"},
		},
		Rules:    []policy.Rule{{ID: "DRV001", Title: "missing-driver-image", Severity: policy.Error}, {ID: "DRV050", Title: "fleet-version-skew", Severity: policy.Warning}},
		Summary:  policy.Summary{Errors: 2, Warnings: 1},
		Clusters: []fleet.Cluster{{Name: "eu-1"}, {Name: "us-1"}},
	}
	out := func(format string) string {
		var b bytes.Buffer
		if err := Render(&b, format, r, Options{}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for format, want := range map[string][]string{
		"text":     {"DRV001 missing-driver-image  eu-1: Node/gpu-1\n", "DRV001 missing-driver-image  us-1: Node/gpu-1\n", "in 2 cluster(s)"},
		"json":     {`"cluster": "eu-1",`, `"clusters": [`},
		"github":   {"::eu-1: Node/gpu-1: no image", "::us-1: Node/gpu-1: no image"},
		"markdown": {"eu-1: Node/gpu-1", "us-1: Node/gpu-1"},
		"sarif":    {"eu-1: Node/gpu-1: no image", "us-1: Node/gpu-1: no image"},
		"junit":    {`name="eu-1: Node/gpu-1"`, `name="us-1: Node/gpu-1"`},
		"prometheus": {
			`drvcheck_findings{cluster="eu-1",rule="DRV001",severity="error"} 1`,
			`drvcheck_findings{cluster="us-1",rule="DRV050",severity="warning"} 0`,
			`drvcheck_findings{cluster="",rule="DRV050",severity="warning"} 1`,
		},
	} {
		got := out(format)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s lacks %q:\n%s", format, w, got)
			}
		}
	}
	var fps []string
	for _, l := range strings.Split(out("sarif"), "\n") {
		if strings.Contains(l, "drvcheckFinding/v1") {
			fps = append(fps, l)
		}
	}
	if len(fps) != 3 || fps[0] == fps[1] {
		t.Errorf("SARIF fingerprints of one node in two clusters: %q", fps)
	}
}

// A finding's text is the repository's to shape: in the HTML page it is
// escaped (and the page's CSP runs no script but its own), and in the
// summary's folded text no tag or fence of it closes the <pre>.
func TestHostileTextStaysText(t *testing.T) {
	msg := "</pre>```<script>alert(1)</script><img src=x onerror=alert(2)>"
	r := Report{Findings: []policy.Finding{{Rule: "DRV001", Severity: policy.Error, Object: object.Ref{Kind: "Node", Name: "n"}, Message: msg}}}
	var b bytes.Buffer
	if err := Render(&b, "html", r, Options{}); err != nil {
		t.Fatal(err)
	}
	if page := b.String(); strings.Contains(page, "<script>alert") || strings.Contains(page, "<img src=x") || strings.Count(page, "<script>") != 1 {
		t.Errorf("the message is markup in the page:\n%s", page)
	}
	b.Reset()
	if err := foldedSummary(&b, "verdict "+msg+"\n"+msg+"\n", nil); err != nil {
		t.Fatal(err)
	}
	if sum := b.String(); strings.Count(sum, "</pre>") != 1 || strings.Contains(sum, "```") || strings.Contains(sum, "<script>") {
		t.Errorf("the text escapes the summary:\n%s", sum)
	}
}

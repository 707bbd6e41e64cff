package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/drvcheck/drvcheck/internal/exceptions"
	"github.com/drvcheck/drvcheck/internal/fleet"
	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/policy"
)

// TestJSONIsTheEncoders holds JSON, which encodes the findings in parts on
// every CPU, to the bytes of one json.Encoder with SetIndent("", "  ") over
// the same report: no findings, one, fewer than the CPUs, a count the
// parts do not divide, characters the encoder escapes, and every optional
// section.
func TestJSONIsTheEncoders(t *testing.T) {
	finding := func(i int) policy.Finding {
		return policy.Finding{
			Rule: fmt.Sprintf("DRV%03d", i%50), Title: "t", Severity: policy.Error,
			Object: object.Ref{Kind: "Deployment", Namespace: "ns", Name: fmt.Sprintf("w-%d", i)},
			Node:   "gpu-1", Tag: "550-ubuntu22.04", Message: fmt.Sprintf("needs <branch> & \"more\" \u2028 é %d", i),
			File: "k8s/a.yaml", Line: i, Field: []any{"spec"}, Fix: "not printed",
		}
	}
	findings := func(n int) []policy.Finding {
		out := make([]policy.Finding, n)
		for i := range out {
			out[i] = finding(i)
		}
		return out
	}
	cpus := runtime.GOMAXPROCS(0)
	reports := map[string]Report{
		"none":            {Summary: policy.Summary{Objects: 3}},
		"empty":           {Findings: []policy.Finding{}},
		"one":             {Findings: findings(1), Summary: policy.Summary{Errors: 1}},
		"fewer than cpus": {Findings: findings(max(1, cpus-1))},
		"not divided":     {Findings: findings(7*cpus + 3)},
		"every section": {
			Findings:   findings(101),
			Suppressed: []exceptions.Suppressed{{Finding: finding(1), Reason: "<known>", Source: "annotation"}},
			Cluster:    &fleet.Cluster{Name: "east"},
			Clusters:   []fleet.Cluster{{Name: "a"}, {Name: "b"}},
			Unread:     []string{"west"},
		},
	}
	for name, r := range reports {
		t.Run(name, func(t *testing.T) {
			var got bytes.Buffer
			if err := JSON(&got, r, Options{}); err != nil {
				t.Fatal(err)
			}
			out := jsonReport{Findings: r.Findings, Suppressed: r.Suppressed, Summary: r.Summary, Cluster: r.Cluster, Clusters: r.Clusters, Unread: r.Unread}
			if out.Findings == nil {
				out.Findings = []policy.Finding{}
			}
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetIndent("", "  ")
			if err := enc.Encode(out); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("JSON wrote\n%s\nthe encoder writes\n%s", got.Bytes(), want.Bytes())
			}
		})
	}
}

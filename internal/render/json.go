package render

import (
	"encoding/json"
	"io"

	"github.com/drvcheck/drvcheck/internal/exceptions"
	"github.com/drvcheck/drvcheck/internal/fleet"
	"github.com/drvcheck/drvcheck/policy"
)

type jsonReport struct {
	Findings []policy.Finding `json:"findings"`
	// Suppressed lists findings held back by an exception, with the
	// reason; absent when there are none, so the documented shape holds.
	Suppressed []exceptions.Suppressed `json:"suppressed,omitempty"`
	Summary    policy.Summary          `json:"summary"`
	Cluster    *fleet.Cluster          `json:"cluster,omitempty"`
	Clusters   []fleet.Cluster         `json:"clusters,omitempty"`
	Unread     []string                `json:"unread_clusters,omitempty"`
}

// JSON prints the documented shape (README, "JSON output"): sorted findings (never null) and the
// summary.
func JSON(w io.Writer, r Report, _ Options) error {
	out := jsonReport{Findings: r.Findings, Suppressed: r.Suppressed, Summary: r.Summary, Cluster: r.Cluster, Clusters: r.Clusters, Unread: r.Unread}
	if out.Findings == nil {
		out.Findings = []policy.Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

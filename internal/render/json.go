package render

import (
	"encoding/json"
	"io"

	"github.com/drvcheck/drvcheck/policy"
)

type jsonReport struct {
	Findings []policy.Finding `json:"findings"`
	Summary  policy.Summary   `json:"summary"`
}

// JSON prints the contract's shape: sorted findings (never null) and the
// summary.
func JSON(w io.Writer, r Report, _ Options) error {
	out := jsonReport{Findings: r.Findings, Summary: r.Summary}
	if out.Findings == nil {
		out.Findings = []policy.Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

package render

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/drvcheck/drvcheck/internal/oneline"
	"github.com/drvcheck/drvcheck/internal/status"
	"github.com/drvcheck/drvcheck/policy"
)

// Status prints one row per GPU node (status). The json form is
// {"nodes": [...], "states": [...]}: the rows and the state order their
// state_step counts in.
func Status(w io.Writer, format string, rows []status.Row) error {
	states := policy.UpgradeStates().Names()
	if format == "json" {
		if rows == nil {
			rows = []status.Row{}
		}
		return writeJSON(w, map[string]any{"nodes": rows, "states": states})
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tDRIVER\tKERNEL\tTAG\tIMAGE\tUPGRADE-STATE\tCORDONED\tFINDING")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			oneline.Escape(r.Node), oneline.Escape(dash(r.Driver)), oneline.Escape(dash(r.Kernel)), oneline.Escape(dash(r.Tag)), r.Image,
			oneline.Escape(stateText(r, len(states))), yesNo(r.Cordoned), oneline.Escape(explanation(r)))
	}
	return tw.Flush()
}

func stateText(r status.Row, steps int) string {
	switch {
	case r.State == "":
		return "-"
	case r.StateStep > 0:
		return fmt.Sprintf("%s (%d/%d)", r.State, r.StateStep, steps)
	}
	return r.State
}

func explanation(r status.Row) string {
	if r.Reason != "" {
		return "no driver deployed: " + r.Reason
	}
	if r.Finding == nil {
		return "-"
	}
	return r.Finding.Rule + " " + r.Finding.Message
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

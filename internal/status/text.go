package status

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteText prints one aligned row per GPU node.
func WriteText(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tDRIVER\tKERNEL\tTAG\tIMAGE\tUPGRADE-STATE\tCORDONED\tFINDING")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			r.Node, dash(r.Driver), dash(r.Kernel), dash(r.Tag), r.Image, state(r), yesNo(r.Cordoned), finding(r))
	}
	return tw.Flush()
}

// WriteJSON prints {"nodes": [...], "states": [...]}: the rows and the
// state order their state_step counts in.
func WriteJSON(w io.Writer, rows []Row) error {
	if rows == nil {
		rows = []Row{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"nodes": rows, "states": States})
}

func state(r Row) string {
	switch {
	case r.State == "":
		return "-"
	case r.StateStep > 0:
		return fmt.Sprintf("%s (%d/%d)", r.State, r.StateStep, len(States))
	}
	return r.State
}

func finding(r Row) string {
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

package plan

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteText prints the plan for people, one step after the other.
func (p *Plan) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	from := p.From
	if from == "" {
		from = "an unknown driver"
	}
	fmt.Fprintf(bw, "Upgrade %s from %s to %s\n", p.Node, from, p.To)
	for _, s := range p.Steps {
		writeStep(bw, s)
	}
	if p.CanRun {
		fmt.Fprintln(bw, "Every step can run.")
	} else {
		fmt.Fprintln(bw, "Blocked: apply the fixes of the BLOCKED steps, in order, then plan again.")
	}
	return bw.Flush()
}

func writeStep(w io.Writer, s Step) {
	status := s.Status
	if status != OK {
		status = strings.ToUpper(status)
	}
	fmt.Fprintf(w, "%d. %-15s %-8s %s\n", s.N, s.Title, status, s.Summary)
	for _, b := range s.Blockers {
		fmt.Fprintf(w, "     blocked: %s\n     fix:     %s\n", b.What, b.Fix)
	}
	for _, n := range s.Notes {
		fmt.Fprintf(w, "     note:    %s\n", n)
	}
}

// WriteJSON prints the plan as indented JSON.
func (p *Plan) WriteJSON(w io.Writer) error { return writeJSON(w, p) }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

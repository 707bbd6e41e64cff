package render

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"

	"github.com/drvcheck/drvcheck/internal/plan"
)

//go:embed html/rollout.html
var rolloutSource string

var rolloutPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("rollout").Parse(rolloutSource))
})

// outcomeColors, one per outcome a node of the rollout can meet.
var outcomeColors = []struct{ Name, Color string }{
	{plan.Upgraded, "#59a14f"},
	{plan.Failed, "#e15759"},
	{plan.Stuck, "#f28e2b"},
	{plan.NotStarted, "#9c755f"},
}

func outcomeColor(outcome string) string {
	for _, c := range outcomeColors {
		if c.Name == outcome {
			return c.Color
		}
	}
	return "#bab0ac"
}

// Timeline geometry, in pixels: a node per row, a round per column.
const (
	tlLabel = 190
	tlRound = 90
	tlRow   = 24
	tlTop   = 26
)

// rolloutView is the page: one timeline per cluster (one without a
// name for a single cluster's plan).
type rolloutView struct {
	Title    string
	Legend   []struct{ Name, Color string }
	Clusters []timeline
}

type timeline struct {
	Cluster, Driver, Verdict, Severity string
	Scopes                             []timelineScope
	Displaced                          []plan.Displaced
	GangsUnjudged                      string
}

type timelineScope struct {
	Name, Header, Why string
	Width, Height     int
	NeverX            int // the column of the nodes that never start
	Ticks             []struct{ X, Round int }
	Rows              []timelineRow
	Others            []plan.NodeOutcome
}

// timelineRow is one node: a bar in the round it starts in (started),
// or a dashed one after the last round for a node that never starts.
type timelineRow struct {
	Node, Outcome, Color, Title, Blockers string
	Started, Blocked                      bool
	X, Y, W, TextY, MarkX                 int
}

// RollingHTML prints plan --all as a page: per cluster and scope, the
// nodes as bars on a timeline of rounds (the windows of the upgrade
// library), each coloured by its outcome, with what blocks it marked;
// the nodes the rollout leaves alone listed under it. Self-contained,
// with no script.
func RollingHTML(w io.Writer, rs ...*plan.Rolling) error {
	v := rolloutView{Title: "Rolling driver upgrade", Legend: outcomeColors}
	if len(rs) == 1 && rs[0].Cluster == "" {
		v.Title += " to " + rs[0].Driver
	}
	for _, r := range rs {
		tl := timeline{Cluster: r.Cluster, Driver: r.Driver, Verdict: r.Verdict, Severity: r.Severity, Displaced: r.Displaced, GangsUnjudged: r.GangsUnjudged}
		for _, sc := range r.Scopes {
			tl.Scopes = append(tl.Scopes, timelineOf(sc, r.Nodes))
		}
		v.Clusters = append(v.Clusters, tl)
	}
	// The page is written whole, then made printable: node, workload and
	// scope names come from the repository, and html/template leaves their
	// control characters (an escape sequence for whoever prints the page)
	// as they are. The template itself holds no control character but the
	// line break, which printable keeps.
	var b bytes.Buffer
	if err := rolloutPage().Execute(&b, v); err != nil {
		return err
	}
	_, err := io.WriteString(w, printable(b.String()))
	return err
}

func timelineOf(sc plan.Scope, nodes []plan.NodeOutcome) timelineScope {
	ts := timelineScope{Name: sc.Name, Why: sc.Why,
		Header: fmt.Sprintf("%d managed node(s); at the outset %d may start, %d already in the upgrade, %d cordoned or NotReady", sc.Managed, sc.Slots, sc.InProgress, sc.Unavailable)}
	var rolled []plan.NodeOutcome
	rounds := 0
	for _, o := range nodes {
		if o.Scope != sc.Name {
			continue
		}
		if !o.Rolled() {
			ts.Others = append(ts.Others, o)
			continue
		}
		rolled = append(rolled, o)
		rounds = max(rounds, o.Round)
	}
	for i := range rounds {
		ts.Ticks = append(ts.Ticks, struct{ X, Round int }{tlLabel + i*tlRound, i + 1})
	}
	ts.NeverX = tlLabel + rounds*tlRound
	for i, o := range rolled {
		ts.Rows = append(ts.Rows, rowOf(o, i, ts.NeverX))
	}
	ts.Width = tlLabel + (rounds+1)*tlRound + 20
	ts.Height = tlTop + len(rolled)*tlRow + 8
	return ts
}

func rowOf(o plan.NodeOutcome, i, neverX int) timelineRow {
	y := tlTop + i*tlRow
	row := timelineRow{Node: o.Node, Outcome: o.Outcome, Color: outcomeColor(o.Outcome), Started: o.Round > 0,
		Y: y + 2, W: tlRound - 6, TextY: y + 15}
	row.X = tlLabel + (o.Round-1)*tlRound
	if !row.Started {
		row.X = neverX // after the last round: it waits for good
	}
	row.MarkX = row.X + row.W + 4
	row.Title = o.Node + ": " + o.Outcome
	if o.State != "" {
		row.Title += " in " + o.State
	}
	if o.Note != "" {
		row.Title += "; " + o.Note
	}
	var why []string
	for _, b := range o.Why {
		s := b.What
		if b.Phase != "" {
			s = b.Phase + ": " + s
		}
		why = append(why, s)
	}
	row.Blocked, row.Blockers = len(why) > 0, strings.Join(why, "\n")
	return row
}

package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/drvcheck/drvcheck/internal/oneline"
	"github.com/drvcheck/drvcheck/policy"
)

// Gang is a gang that fits the fleet the rules judged (gpufit.Room),
// asked again with the nodes a round of the rollout holds out.
type Gang interface {
	String() string // its object, as findings name it
	MustRun() int   // its pods that must run at once
	Reason() string // why its kind is a gang
	// Placed is how many of them fit with the nodes named out, and
	// which of those nodes the gang admits; ok is false when it cannot
	// say (the run's packing is over its bound).
	Placed(out []string) (placed int, admitted []string, ok bool)
}

// Displaced is a GPU workload without room for all its pods while a
// window's nodes are out.
type Displaced struct {
	Object string `json:"object"`
	Why    string `json:"why"`
	// Must are its pods that must run at once.
	Must int `json:"must"`
	// First is the first round, in the simulation's order, whose window
	// leaves it without room; Rounds counts them all, over every scope.
	First  *GangWindow `json:"first,omitempty"`
	Rounds int         `json:"rounds"`
	// OrderDependent: the name order and its reverse disagree, or only
	// the rules' window at worst (the admitted nodes of most room out at
	// once) finds it: another order the operator may take does.
	OrderDependent bool `json:"order_dependent"`
}

// GangWindow is one round's window as a gang meets it.
type GangWindow struct {
	Scope  string   `json:"scope"`
	Round  int      `json:"round"`
	Out    []string `json:"out"`    // the nodes it admits that the rollout holds cordoned then
	Placed int      `json:"placed"` // of the pods that must run at once, those that fit
}

// gangWatch follows one run of the rollout (one order) and asks every
// gang, at each round's fullest, whether it still fits: the nodes that
// start are cordoned at once, and those of earlier rounds that failed or
// stuck keep their cordon.
type gangWatch struct {
	gangs []Gang // those still asked
	all   []Gang
	order string          // "" in name order, else how the run goes
	out   map[string]bool // cordoned by the rollout, not uncordoned since
	seen  map[Gang]*Displaced
	met   []Gang // in the order first displaced
	// unjudged is the first round a gang could not be packed at, and
	// the gang; 0 while every round was judged.
	unjudged     int
	unjudgedGang Gang
}

func newGangWatch(gangs []Gang, order string) *gangWatch {
	return &gangWatch{gangs: gangs, all: gangs, order: order, out: map[string]bool{}, seen: map[Gang]*Displaced{}}
}

func (g *gangWatch) cordon(node string)   { g.out[node] = true }
func (g *gangWatch) uncordon(node string) { delete(g.out, node) }

// round asks every gang with the nodes out now.
func (g *gangWatch) round(scope string, round int) {
	if len(g.gangs) == 0 || len(g.out) == 0 {
		return
	}
	out := make([]string, 0, len(g.out))
	for n := range g.out {
		out = append(out, n)
	}
	slices.Sort(out)
	for _, x := range g.gangs {
		placed, admitted, ok := x.Placed(out)
		if !ok {
			g.unjudged, g.unjudgedGang = round, x
			g.gangs = nil // none is asked again: the bound is the run's
			return
		}
		if placed >= x.MustRun() {
			continue
		}
		d := g.seen[x]
		if d == nil {
			d = &Displaced{Object: x.String(), Must: x.MustRun(), First: &GangWindow{Scope: scope, Round: round, Out: admitted, Placed: placed}}
			d.Why = gangWhy(x, d.First, g.order)
			g.seen[x] = d
			g.met = append(g.met, x)
		}
		d.Rounds++
	}
}

// gangWhy is the sentence a displaced gang is told.
func gangWhy(x Gang, w *GangWindow, order string) string {
	return fmt.Sprintf("in round %d (%s%s), with %s cordoned, %d of the %d GPU pods that must run at once fit, so it stops until they return: %s",
		w.Round, w.Scope, order, oneline.Few(w.Out, ", "), w.Placed, x.MustRun(), x.Reason())
}

// displacedOf are the gangs the rollout leaves without room, in name
// order and its reverse, and those the rules find at worst (DRV029)
// that neither order meets, all marked when the orders disagree.
func displacedOf(forward, backward *gangWatch, fs []policy.Finding) []Displaced {
	out := []Displaced{}
	named := map[string]bool{}
	for _, x := range forward.met {
		d := *forward.seen[x]
		d.OrderDependent = backward.seen[x] == nil
		out = append(out, d)
		named[d.Object] = true
	}
	for _, x := range backward.met {
		if forward.seen[x] == nil {
			d := *backward.seen[x]
			d.OrderDependent = true
			out = append(out, d)
			named[d.Object] = true
		}
	}
	must := map[string]int{}
	for _, x := range forward.all {
		must[x.String()] = x.MustRun()
	}
	for _, f := range fs {
		if f.Rule == windowRule && !named[f.Object.String()] {
			out = append(out, Displaced{Object: f.Object.String(), Must: must[f.Object.String()], OrderDependent: true,
				Why: "not in name order or its reverse, but in another order the operator may take: " + f.Message})
		}
	}
	slices.SortStableFunc(out, func(a, b Displaced) int { return strings.Compare(a.Object, b.Object) })
	return out
}

// unjudgedNote says, when the packing of gangs stopped at its bound, from
// which round on no gang was judged; "" otherwise.
func unjudgedNote(forward, backward *gangWatch) string {
	for _, g := range []*gangWatch{forward, backward} {
		if g.unjudged > 0 {
			return fmt.Sprintf("gangs are not judged from round %d on (%s): packing every gang at every round of this fleet is past drvcheck's bound; check's DRV029 judges each at worst", g.unjudged, g.unjudgedGang)
		}
	}
	return ""
}

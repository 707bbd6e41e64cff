package status

import (
	"slices"
	"strings"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/policy"
)

// Image verdicts.
const (
	ImagePresent   = "present"
	ImageMissing   = "missing"
	ImageUnchecked = "unchecked" // no --matrix or --registry
	ImageNoTag     = "no-tag"    // a label the tag needs is missing
)

// Row is one GPU node.
type Row struct {
	Node      string `json:"node"`
	Driver    string `json:"driver"`
	Kernel    string `json:"kernel"`
	Tag       string `json:"tag"`
	Image     string `json:"image"`
	State     string `json:"state"`
	StateStep int    `json:"state_step"` // position on the upgrade path, of len(States)
	Cordoned  bool   `json:"cordoned"`
	// Finding explains a stall; nil when the node is not in an upgrade
	// state that stalls, or nothing explains it.
	Finding *policy.Finding `json:"finding"`
}

// Rows builds one row per GPU node, by name, from the model, the catalog
// and the findings of a run over the same inventory.
func Rows(m *drain.Model, cat *catalog.Catalog, findings []policy.Finding) []Row {
	var rows []Row
	for _, n := range m.Nodes {
		f := nodefacts.Of(n)
		if !f.GPU {
			continue
		}
		r := Row{
			Node: f.Name, Driver: f.DriverVersion, Kernel: f.Kernel, Tag: f.Tag,
			Image: image(cat, f.Tag), State: f.UpgradeState, StateStep: Step(f.UpgradeState), Cordoned: f.Unschedulable,
		}
		r.Finding = explain(m, f, findings)
		rows = append(rows, r)
	}
	slices.SortFunc(rows, func(a, b Row) int { return strings.Compare(a.Node, b.Node) })
	return rows
}

func image(cat *catalog.Catalog, tag string) string {
	switch {
	case tag == "":
		return ImageNoTag
	case !cat.Configured():
		return ImageUnchecked
	case len(cat.Lookup(tag)) > 0:
		return ImagePresent
	}
	return ImageMissing
}

// explain picks the finding that explains where the node stands: in the
// drain states, the budget that refuses its evictions (DRV021, DRV020) or
// its pods that need force (DRV023); in the image states, its missing
// image or facts (DRV001, DRV002); after the upgrade, DRV031; else DRV030.
func explain(m *drain.Model, f nodefacts.Facts, fs []policy.Finding) *policy.Finding {
	state := f.UpgradeState
	if state == "" {
		return nil
	}
	var candidates []func(policy.Finding) bool
	if drainStates[state] {
		room := m.NewSim(drain.Flags{}).Room(f.Name)
		budgets := map[string]bool{}
		for _, r := range room.Refusals {
			budgets[r.Budget.Ref.Namespace+"/"+r.Budget.Name()] = true
		}
		for _, o := range room.Overlaps {
			for _, b := range o.Budgets {
				budgets[b.Ref.Namespace+"/"+b.Name()] = true
			}
		}
		onBudget := func(rule string) func(policy.Finding) bool {
			return func(x policy.Finding) bool {
				return x.Rule == rule && budgets[x.Object.Namespace+"/"+x.Object.Name]
			}
		}
		candidates = append(candidates, onBudget("DRV021"), onBudget("DRV020"), onNode("DRV023", f.Name))
	}
	if imageStates[state] {
		candidates = append(candidates, onNode("DRV001", f.Name), onNode("DRV002", f.Name))
	}
	candidates = append(candidates, onNode("DRV031", f.Name), onNode("DRV030", f.Name))
	for _, match := range candidates {
		for i := range fs {
			if match(fs[i]) {
				return &fs[i]
			}
		}
	}
	return nil
}

func onNode(rule, node string) func(policy.Finding) bool {
	return func(x policy.Finding) bool {
		return x.Rule == rule && x.Object.Kind == "Node" && x.Object.Name == node
	}
}

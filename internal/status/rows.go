package status

import (
	"slices"
	"strings"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/policy"
)

// Image verdicts.
const (
	ImagePresent   = "present"
	ImageMissing   = "missing"
	ImageUnchecked = "unchecked" // no --matrix or --registry
	ImageNoTag     = "no-tag"    // a label the tag needs is missing
	ImageNone      = "none"      // the GPU Operator deploys no driver here (Row.Reason says why)
)

// Row is one GPU node.
type Row struct {
	Node      string `json:"node"`
	Driver    string `json:"driver"`
	Kernel    string `json:"kernel"`
	Tag       string `json:"tag"`
	Image     string `json:"image"`
	State     string `json:"state"`
	StateStep int    `json:"state_step"` // position on the upgrade path (policy.Upgrade.Step)
	Cordoned  bool   `json:"cordoned"`
	// Reason says why the GPU Operator deploys no driver on the node, when
	// Image is none.
	Reason string `json:"reason,omitempty"`
	// Finding explains a stall: the first finding, in the report's order,
	// that says it stalls this node where it stands; nil when none does.
	Finding *policy.Finding `json:"finding"`
}

// Rows builds one row per GPU node, by name, from the run's node facts,
// the catalog and its findings.
func Rows(facts *nodefacts.Set, cat *catalog.Catalog, findings []policy.Finding) []Row {
	states := policy.UpgradeStates()
	var rows []Row
	for _, f := range facts.List() {
		if !f.GPU {
			continue
		}
		rows = append(rows, Row{
			Node: f.Name, Driver: f.DriverVersion, Kernel: f.Kernel, Tag: f.Tag,
			Image: image(cat.CheckRef(f.Image.Repository, f.Tag), f), State: f.UpgradeState, StateStep: states.Step(f.UpgradeState),
			Cordoned: f.Unschedulable, Finding: explain(f, findings),
		})
		if !f.Image.Managed {
			rows[len(rows)-1].Reason = f.Image.Reason
		}
	}
	slices.SortFunc(rows, func(a, b Row) int { return strings.Compare(a.Node, b.Node) })
	return rows
}

func image(v catalog.Verdict, f nodefacts.Facts) string {
	switch {
	case !f.Image.Managed:
		return ImageNone
	case f.Tag == "":
		return ImageNoTag
	case !v.Checked:
		return ImageUnchecked
	case v.Present:
		return ImagePresent
	}
	return ImageMissing
}

// explain picks the finding that explains where the node stands. Rules
// say which nodes' upgrades a finding holds (Finding.Stalls); which states
// a cause can hold a node in comes from the upgrade state table the rules
// read (rego/data/upgrade.json).
func explain(f nodefacts.Facts, fs []policy.Finding) *policy.Finding {
	if f.UpgradeState == "" {
		return nil
	}
	for i := range fs {
		if slices.Contains(fs[i].Stalls, f.Name) {
			return &fs[i]
		}
	}
	return nil
}

package plan

// Step statuses.
const (
	OK      = "ok"
	Blocked = "blocked" // something blocks this step now
	Waiting = "waiting" // an earlier step it needs is blocked
)

// Step names, in the order an upgrade takes them.
const (
	StepImage    = "image"
	StepBudget   = "budget"
	StepDrain    = "drain"
	StepReload   = "reload"
	StepUncordon = "uncordon"
	StepAudit    = "audit"
)

// Blocker is what blocks a step and the smallest change that unblocks it.
type Blocker struct {
	What string `json:"what"`
	Fix  string `json:"fix"`
	// Phase is the upgrade phase that meets it (plan --all).
	Phase string `json:"phase,omitempty"`
}

// Step is one step of a node's upgrade.
type Step struct {
	N        int       `json:"step"`
	Name     string    `json:"name"`
	Title    string    `json:"title"`
	Status   string    `json:"status"`
	Summary  string    `json:"summary"`
	Blockers []Blocker `json:"blockers"`
	Notes    []string  `json:"notes"`
	// needs are the steps this one waits for.
	needs []string
}

// Plan is the driver upgrade of one node.
type Plan struct {
	Node   string `json:"node"`
	From   string `json:"from"` // the driver version now; "" when unknown
	To     string `json:"to"`
	Tag    string `json:"tag"` // the image tag the node needs after the upgrade
	CanRun bool   `json:"can_run"`
	Steps  []Step `json:"steps"`
	// Pods the drain deletes only with --force / --delete-emptydir-data.
	NeedsForce          []string `json:"needs_force"`
	NeedsDeleteEmptyDir []string `json:"needs_delete_emptydir"`
}

// settle marks steps that wait for a blocked one and whether all can run.
func (p *Plan) settle() {
	status := map[string]string{}
	p.CanRun = true
	for i := range p.Steps {
		s := &p.Steps[i]
		if s.Blockers == nil {
			s.Blockers = []Blocker{}
		}
		if s.Notes == nil {
			s.Notes = []string{}
		}
		switch {
		case len(s.Blockers) > 0:
			s.Status = Blocked
			p.CanRun = false
		case waitsOn(s.needs, status):
			s.Status = Waiting
		default:
			s.Status = OK
		}
		status[s.Name] = s.Status
	}
}

func waitsOn(needs []string, status map[string]string) bool {
	for _, n := range needs {
		if status[n] != OK {
			return true
		}
	}
	return false
}

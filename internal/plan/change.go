package plan

import "github.com/drvcheck/drvcheck/internal/operator/change"

// Change is what a change of the operator's configuration does (drvcheck
// diff): the verdict, each scope's fields, each node's change, and the
// rollout when there is one to run.
type Change struct {
	Verdict string               `json:"verdict"` // no-op, restart-only or full-rollout
	Base    string               `json:"base"`
	Head    string               `json:"head"`
	Scopes  []change.ScopeChange `json:"scopes"`
	Nodes   []change.NodeChange  `json:"nodes"`
	Rolling *Rolling             `json:"rolling"` // nil for a no-op
}

// Worst is the verdict: the most disruptive change of any node, and of
// any scope that owns a node of the new side (or of any scope when no
// node is known).
func (c *Change) Worst() string {
	rank := map[string]int{change.NoOp: 0, change.RestartOnly: 1, change.FullRollout: 2, change.Removed: 3}
	worst := change.NoOp
	see := func(k string) {
		if rank[k] > rank[worst] {
			worst = k
		}
	}
	owners := map[string]bool{}
	for _, n := range c.Nodes {
		see(n.Kind)
		if n.Kind != change.Removed {
			owners[n.Scope] = true
		}
	}
	for _, s := range c.Scopes {
		if owners[s.Owner] || len(c.Nodes) == 0 {
			see(s.Kind)
		}
	}
	return worst
}

// ChangeOf says, for RollingOptions.Change, what c does to each node; a
// node the new configuration does not manage keeps its driver.
func (c *Change) ChangeOf() func(node string) (string, string) {
	byNode := make(map[string]change.NodeChange, len(c.Nodes))
	for _, n := range c.Nodes {
		byNode[n.Node] = n
	}
	return func(node string) (string, string) {
		n, ok := byNode[node]
		if !ok {
			return change.NoOp, "not managed by the new configuration"
		}
		return n.Kind, n.Why
	}
}
